#ifndef CZeroMQ_SHIM_H
#define CZeroMQ_SHIM_H
#include <errno.h>
#include <zmq.h>

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

#endif
