#!/usr/bin/env bash
# Boots a real systemd as PID 1 in fresh namespaces, on a throw-away overlay of / with a staged
# `make install DESTDIR=STAGE` tree copied in, for the real-systemd test (IntegrationTests,
# SystemdServiceTests). Nothing on the host changes but a sub-cgroup, which `down` removes.
#
# Usage:
#   scripts/systemd-boot.sh probe              exit 0 if this machine can boot one, else print why, exit 77
#   scripts/systemd-boot.sh up STAGE WORK      boot; WORK is a new empty directory (state, console log);
#                                              prints the host PID of the new PID 1 once systemctl can talk to it
#   scripts/systemd-boot.sh run WORK CMD...    run CMD inside (every namespace of that PID 1, its root and cwd)
#   scripts/systemd-boot.sh down WORK          poweroff, else SIGKILL of that PID 1; remove the sub-cgroups
# With SEGUE_BOOT_OWNER=PID in the environment of `up`, the same happens once process PID is gone.
#
# Why a sub-cgroup of a cgroup2 mount: systemd needs a cgroup2 hierarchy it may write, and the cgroup
# namespace makes that sub-cgroup its root. On hybrid hosts (cgroup v1 with /sys/fs/cgroup/unified)
# the unified mount has no controllers, which systemd accepts in a container.
set -euo pipefail

die() { echo "systemd-boot: $*" >&2; exit 1; }

# Closes every descriptor but stdio, in a subshell about to start what outlives this script: a
# caller waiting for a descriptor it gave this script to close (a pipe, Foundation's Process) must
# not wait for the booted systemd.
close_inherited() {
    local fd
    for fd in /proc/$BASHPID/fd/*; do
        fd=${fd##*/}
        if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
}

# The cgroup2 mount to make the sub-cgroup in: /sys/fs/cgroup/unified on hybrid hosts, else
# /sys/fs/cgroup when it is cgroup2 itself.
cgroup2_root() {
    local dir
    for dir in /sys/fs/cgroup/unified /sys/fs/cgroup; do
        if [ "$(stat -f -c %T "$dir" 2>/dev/null)" = cgroup2fs ]; then echo "$dir"; return 0; fi
    done
    return 1
}

probe() {
    local missing=""
    [ "$(id -u)" = 0 ] || { echo "needs root (mount, pivot_root and cgroups)"; exit 77; }
    for tool in unshare nsenter ip mount pivot_root; do
        command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
    done
    [ -x /lib/systemd/systemd ] || missing="$missing /lib/systemd/systemd"
    [ -z "$missing" ] || { echo "missing:$missing (apt-get install util-linux mount iproute2 systemd)"; exit 77; }
    local root
    root=$(cgroup2_root) || { echo "no cgroup2 hierarchy (neither /sys/fs/cgroup/unified nor /sys/fs/cgroup)"; exit 77; }
    mkdir "$root/segue-probe-$$" 2>/dev/null && rmdir "$root/segue-probe-$$" \
        || { echo "cannot make a sub-cgroup in $root"; exit 77; }
    local out
    out=$(unshare --cgroup --pid --fork --mount --uts --ipc --net --kill-child sh -c \
        'mount -t tmpfs tmpfs /mnt && mkdir /mnt/l /mnt/u /mnt/w /mnt/m && mount -t overlay overlay -o lowerdir=/,upperdir=/mnt/u,workdir=/mnt/w /mnt/m' 2>&1) \
        || { echo "cannot create namespaces or an overlay of / here: $out"; exit 77; }
    exit 0
}

# Runs as PID 1 of the new namespaces: builds the root, then becomes systemd.
init() {
    local stage=$1 work=$2
    local layers=$work/layers new
    mkdir -p "$layers"
    mount -t tmpfs -o mode=0755 segue-layers "$layers"
    mkdir "$layers/upper" "$layers/work" "$layers/root"
    mount -t overlay overlay -o "lowerdir=/,upperdir=$layers/upper,workdir=$layers/work" "$layers/root"
    new=$layers/root
    mount -t proc proc "$new/proc"
    mount -t sysfs -o ro sysfs "$new/sys"
    mount -t cgroup2 cgroup2 "$new/sys/fs/cgroup"
    mount -t tmpfs -o mode=0755,nosuid segue-dev "$new/dev"
    local node
    for node in null zero full random urandom tty; do
        touch "$new/dev/$node"
        mount --bind "/dev/$node" "$new/dev/$node"
    done
    mkdir "$new/dev/pts" "$new/dev/shm"
    mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$new/dev/pts"
    ln -s pts/ptmx "$new/dev/ptmx"
    mount -t tmpfs -o mode=1777,nosuid,nodev segue-shm "$new/dev/shm"
    touch "$new/dev/console"
    mount --bind /dev/null "$new/dev/console"
    mount -t tmpfs -o mode=0755,nosuid,nodev segue-run "$new/run"
    mount -t tmpfs -o mode=1777,nosuid,nodev segue-tmp "$new/tmp"
    ip link set lo up
    cp -a "$stage/." "$new/"
    # The only unit started at boot: journald, so that `journalctl -u segued` reads the service's log.
    cat > "$new/etc/systemd/system/segue-test.target" <<'EOF'
[Unit]
Description=Segue real-systemd test
Wants=systemd-journald.service
After=systemd-journald.service
AllowIsolate=yes
EOF
    cd "$new"
    mkdir -p .segue-old-root
    pivot_root . .segue-old-root
    umount -l /.segue-old-root
    rmdir /.segue-old-root
    exec env -i container=segue-test /lib/systemd/systemd --unit=segue-test.target
}

up() {
    local stage=$1 work=$2 root cgroup pid leader i
    [ -d "$stage" ] || die "no stage at $stage"
    root=$(cgroup2_root) || die "no cgroup2 hierarchy"
    cgroup="$root/segue-test-$$-$RANDOM"
    mkdir "$cgroup"
    echo "$cgroup" > "$work/cgroup"
    # The subshell joins the sub-cgroup, so that unshare and everything below start in it; this
    # script's own process stays where it was.
    (
        echo "$BASHPID" > "$cgroup/cgroup.procs"
        close_inherited
        exec unshare --cgroup --pid --fork --mount --uts --ipc --net --kill-child \
            "$0" init "$stage" "$work" </dev/null >"$work/console.log" 2>&1
    ) &
    leader=$!
    echo "$leader" > "$work/unshare.pid"
    # unshare's only child is the PID 1 of the new namespaces.
    pid=""
    for i in $(seq 1 200); do
        pid=$(cat "/proc/$leader/task/$leader/children" 2>/dev/null | tr -d ' ') || true
        [ -n "$pid" ] && break
        kill -0 "$leader" 2>/dev/null || break
        sleep 0.05
    done
    [ -n "$pid" ] || { cat "$work/console.log" >&2; die "unshare started no PID 1"; }
    echo "$pid" > "$work/pid"
    if [ -n "${SEGUE_BOOT_OWNER:-}" ]; then
        ( close_inherited; exec "$0" watch-owner "$SEGUE_BOOT_OWNER" "$pid" "$leader" "$cgroup" </dev/null >/dev/null 2>&1 ) &
    fi
    # systemctl needs the manager's private socket; it appears once PID 1 is systemd and running.
    for i in $(seq 1 600); do
        [ -S "/proc/$pid/root/run/systemd/private" ] && { echo "$pid"; return 0; }
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    cat "$work/console.log" >&2
    die "systemd did not come up within 30 s (console log above)"
}

run() {
    local work=$1 pid
    shift
    pid=$(cat "$work/pid")
    exec nsenter -t "$pid" -m -p -u -i -n -C -r -w "$@"
}

down() {
    local work=$1
    teardown "$(cat "$work/pid" 2>/dev/null || true)" "$(cat "$work/unshare.pid" 2>/dev/null || true)" \
        "$(cat "$work/cgroup" 2>/dev/null || true)"
}

# Whether PID is still one of ours: alive and in the sub-cgroup (a reused PID is not).
ours() {
    [ -n "$1" ] && grep -qF "${2##*/}" "/proc/$1/cgroup" 2>/dev/null
}

teardown() {
    local pid=$1 leader=$2 cgroup=$3 i
    if ours "$pid" "$cgroup"; then
        timeout 5 nsenter -t "$pid" -m -p -u -i -n -C -r -w systemctl poweroff --no-block >/dev/null 2>&1 || true
        for i in $(seq 1 100); do ours "$pid" "$cgroup" || break; sleep 0.05; done
        if ours "$pid" "$cgroup"; then
            echo "systemd-boot: PID 1 ($pid) still runs 5 s after poweroff; SIGKILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    # unshare ends with its child; SIGKILL only if it has not.
    for i in $(seq 1 100); do ours "$leader" "$cgroup" || break; sleep 0.05; done
    if ours "$leader" "$cgroup"; then kill -KILL "$leader" 2>/dev/null || true; fi
    if [ -n "$cgroup" ] && [ -d "$cgroup" ]; then
        # Deepest first: a cgroup can only be removed once it has no children (and no processes,
        # which the end of the PID namespace saw to).
        for i in $(seq 1 40); do
            find "$cgroup" -depth -type d -exec rmdir {} + 2>/dev/null || true
            [ -d "$cgroup" ] || break
            sleep 0.05
        done
        [ ! -d "$cgroup" ] || die "could not remove $cgroup"
    fi
}

# With SEGUE_BOOT_OWNER=PID (the test process), tears down once that process is gone, however it
# ended: a killed test leaves no systemd behind.
watch_owner() {
    local owner=$1 pid=$2 leader=$3 cgroup=$4
    while kill -0 "$owner" 2>/dev/null && ours "$pid" "$cgroup"; do sleep 1; done
    teardown "$pid" "$leader" "$cgroup"
}

command=${1:-}
shift || true
case "$command" in
    probe) probe ;;
    init) init "$@" ;;
    up) [ $# -eq 2 ] || die "usage: up STAGE WORK"; up "$@" ;;
    run) [ $# -ge 2 ] || die "usage: run WORK CMD..."; run "$@" ;;
    down) [ $# -eq 1 ] || die "usage: down WORK"; down "$@" ;;
    watch-owner) watch_owner "$@" ;;
    *) sed -n '2,/^set -euo/p' "$0" | grep '^#' >&2; exit 64 ;;
esac
