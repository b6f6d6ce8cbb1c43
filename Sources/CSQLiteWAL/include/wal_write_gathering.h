#ifndef PIZZAD_WAL_WRITE_GATHERING_H
#define PIZZAD_WAL_WRITE_GATHERING_H

#include <sqlite3.h>

/// Registers (once; later calls return the first call's result) an SQLite VFS named `name` over the default one
/// that gathers a transaction's WAL frames in memory and writes them with one `pwrite` (one per 124 KiB) when the
/// commit frame is complete, instead of two `pwrite`s a frame (its 24-byte header, then its page). Every other file, and every
/// other operation on a WAL file, passes straight through; any operation on a WAL file other than an appending
/// write first writes out what is gathered. Not the default VFS: a connection uses it by naming it in
/// `sqlite3_open_v2`. Returns `SQLITE_OK`, or the error that kept it from being registered. Not thread-safe: call it
/// from one thread before any connection opens (pizzad: `Database`'s once-only library set-up).
int pizzad_wal_gathering_register(const char *name, int bufferBytes);

/// What the VFS did with one connection's WAL file since it was opened: the writes SQLite asked for, and the writes
/// made of them (gathered or passed through).
typedef struct {
    sqlite3_int64 writesAsked;
    sqlite3_int64 writesMade;
} pizzad_wal_gathering_counts;

/// Fills `out` with the counts of `db`'s WAL file (its main database's); `SQLITE_NOTFOUND` when it has none open
/// (not in WAL mode, or nothing read yet) or it is not this VFS's. For tests; call it on the connection's thread.
int pizzad_wal_gathering_counts_of(sqlite3 *db, pizzad_wal_gathering_counts *out);

#endif
