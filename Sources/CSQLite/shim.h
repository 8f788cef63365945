#ifndef CSQLite_SHIM_H
#define CSQLite_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is `((sqlite3_destructor_type)-1)`, a cast Swift cannot import: SQLite copies the
/// bytes before the bind returns, so Swift may free its buffer right after the call.
static inline int csqlite_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

#endif
