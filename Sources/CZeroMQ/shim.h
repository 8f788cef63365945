#ifndef CZeroMQ_SHIM_H
#define CZeroMQ_SHIM_H
#include <errno.h>
#include <zmq.h>
#include <poll.h>
#include <sys/timerfd.h>

/* libzmq defines its own error numbers as `ZMQ_HAUSNUMERO + n` macros, which Swift does not import.
 * These constants give SegueWire the exact values (and the POSIX ones it compares against) by name. */
static const int SEGUE_ZMQ_EAGAIN = EAGAIN;
static const int SEGUE_ZMQ_EINTR = EINTR;
static const int SEGUE_ZMQ_EINVAL = EINVAL;
static const int SEGUE_ZMQ_ENOTSUP = ENOTSUP;
static const int SEGUE_ZMQ_EPROTONOSUPPORT = EPROTONOSUPPORT;
static const int SEGUE_ZMQ_ENOTSOCK = ENOTSOCK;
static const int SEGUE_ZMQ_EHOSTUNREACH = EHOSTUNREACH;
static const int SEGUE_ZMQ_EMSGSIZE = EMSGSIZE;
static const int SEGUE_ZMQ_EADDRINUSE = EADDRINUSE;
static const int SEGUE_ZMQ_EFSM = EFSM;
static const int SEGUE_ZMQ_ENOCOMPATPROTO = ENOCOMPATPROTO;
static const int SEGUE_ZMQ_ETERM = ETERM;
static const int SEGUE_ZMQ_EMTHREAD = EMTHREAD;

/* A sub-millisecond wait on one descriptor (zmq_poll and poll(2) count whole milliseconds): a
 * timerfd armed for `nanoseconds` is polled beside `fd`. `timer` is the caller's timerfd, created once.
 * Returns 1 if `fd` is readable, 0 on timeout, -1 with errno on failure. */
static inline int segue_wait_readable(int fd, int timer, long long nanoseconds) {
    struct itimerspec spec = {{0, 0}, {nanoseconds / 1000000000LL, nanoseconds % 1000000000LL}};
    if (nanoseconds <= 0) return 0;
    if (timerfd_settime(timer, 0, &spec, 0) != 0) return -1;
    struct pollfd items[2] = {{fd, POLLIN, 0}, {timer, POLLIN, 0}};
    int ready = poll(items, 2, -1);
    struct itimerspec off = {{0, 0}, {0, 0}};
    timerfd_settime(timer, 0, &off, 0);
    if (ready < 0) return -1;
    return (items[0].revents & POLLIN) ? 1 : 0;
}

static inline int segue_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK); }

#endif
