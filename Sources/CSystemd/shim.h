#ifndef CSystemd_SHIM_H
#define CSystemd_SHIM_H
#include <systemd/sd-daemon.h>
#endif
