#ifndef CMicroHTTPD_SHIM_H
#define CMicroHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon takes its options as C varargs, which Swift cannot call. This starts a daemon on a
 * socket the caller has bound and listens on (so bind errors are the caller's to report, errno and all),
 * with the callbacks SegueHTTP bridges: the request handler and a logger. */
static inline struct MHD_Daemon *segue_mhd_start(
    unsigned int flags, int listen_fd, MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_LogCallback logger, void *logger_cls, unsigned int connection_limit, unsigned int per_address_limit,
    unsigned int connection_timeout_seconds) {
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handler_cls,
        MHD_OPTION_EXTERNAL_LOGGER, logger, logger_cls, /* first, or start-up messages bypass it */
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_END);
}

/* MHD_get_connection_info is variadic too: the connection's socket, or -1. */
static inline int segue_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? (int)info->connect_fd : -1;
}

/* MHD_CONTENT_READER_END_OF_STREAM and MHD_SIZE_UNKNOWN are casts in macros, which Swift does not import. */
static const ssize_t SEGUE_MHD_END_OF_STREAM = MHD_CONTENT_READER_END_OF_STREAM;
static const uint64_t SEGUE_MHD_SIZE_UNKNOWN = MHD_SIZE_UNKNOWN;

#endif
