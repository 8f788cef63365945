#ifndef CSystemd_SHIM_H
#define CSystemd_SHIM_H
// sd_notify and sd_watchdog_enabled: the Type=notify protocol.
#include <systemd/sd-daemon.h>
// signalfd and eventfd: Glibc's Swift module does not export them, and the daemon reads its blocked
// signals through a signalfd so the watcher thread can also be woken to stop (see SignalWatcher).
#include <sys/signalfd.h>
#include <sys/eventfd.h>
// mallopt and malloc_trim, which Glibc's Swift module does not export either: the daemon keeps the
// allocator's thresholds fixed and returns free pages once idle (see HeapTrim).
#include <malloc.h>
#endif
