#ifndef PIZZAD_CSQLITE_SHIM_H
#define PIZZAD_CSQLITE_SHIM_H

#include <sqlite3.h>

// Swift cannot call C variadic functions; these static inline wrappers fix the arguments.

/// `sqlite3_db_config(db, op, int, int*)`: the integer-valued configuration options.
static inline int pizzad_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

/// `SQLITE_TRANSIENT`, which Swift cannot import (it is a cast of -1 to a function pointer).
static inline sqlite3_destructor_type pizzad_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
