#ifndef CPostgres_SHIM_H
#define CPostgres_SHIM_H
/* libpq, found through pkg-config (Debian's libpq-dev: /usr/include/postgresql). */
#include <libpq-fe.h>
#endif
