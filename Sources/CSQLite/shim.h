#ifndef PIZZAD_CSQLITE_SHIM_H
#define PIZZAD_CSQLITE_SHIM_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT`, which Swift cannot import (it is a cast of -1 to a function pointer).
static inline sqlite3_destructor_type pizzad_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}

/// `sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on)`, which Swift cannot call (it is variadic). With statistics off,
/// SQLite's allocations skip the global mutex that keeps them. Only before SQLite initializes, while no other
/// thread uses it; returns `SQLITE_MISUSE` after. See <https://www.sqlite.org/c3ref/c_config_covering_index_scan.html>.
static inline int pizzad_sqlite3_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

/// `sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes)`: a statement journal (a savepoint's copy of the pages it
/// changes) stays in memory up to `bytes`, held in one piece of that size. Only before SQLite initializes.
static inline int pizzad_sqlite3_config_stmtjrnl_spill(int bytes) {
    return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes);
}

#endif
