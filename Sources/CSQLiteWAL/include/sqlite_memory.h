#ifndef PIZZAD_SQLITE_MEMORY_H
#define PIZZAD_SQLITE_MEMORY_H

/// Gives SQLite (`sqlite3_config(SQLITE_CONFIG_MALLOC)`) an allocator that keeps freed small blocks (up to 2 KiB, in
/// seven size classes) in per-thread free lists and hands them out again, instead of a `malloc` and a `free` for each:
/// what SQLite's own lookaside memory does, which Debian's libsqlite3 is built without (`SQLITE_OMIT_LOOKASIDE`), so
/// that every cursor, record and bound value of every order went to glibc. A thread's lists are bounded (256 KiB a
/// class) and returned to `free` when the thread ends; larger blocks go to `malloc` and `free` directly. Only before
/// SQLite initializes (returns `SQLITE_MISUSE` after); call it from one thread, once.
int pizzad_sqlite_memory_install(void);

/// The blocks this thread's lists hold now, all classes (for tests).
int pizzad_sqlite_memory_cached_blocks(void);

#endif
