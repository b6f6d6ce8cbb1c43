#ifndef PIZZAD_CSQLITE_SHIM_H
#define PIZZAD_CSQLITE_SHIM_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT`, which Swift cannot import (it is a cast of -1 to a function pointer).
static inline sqlite3_destructor_type pizzad_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
