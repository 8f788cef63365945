#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for tests: Unix socket only, in a directory of its own.
#
#   scripts/pg-test-server.sh start DIR [--watch PID]   initdb into DIR/data, start, print the env
#   scripts/pg-test-server.sh stop DIR [fast|immediate] stop the server (fast by default)
#   scripts/pg-test-server.sh restart DIR               start a stopped server again
#   scripts/pg-test-server.sh remove DIR                stop it if running, delete DIR
#   scripts/pg-test-server.sh env DIR                   print PGHOST, PGPORT, PGUSER, PGDATABASE
#
# The server listens on no TCP address (listen_addresses = ''), only on a socket in DIR named for
# a port picked at random (the port names the socket file, nothing is bound), and trusts local
# connections: nothing outside DIR can reach it. PostgreSQL refuses to run as root, so as root the
# server runs as the user PG_TEST_USER (default segue-pgtest), created here with useradd if
# missing. With --watch PID a watchdog stops the server and deletes DIR once PID exits, so a test
# run that crashes leaves nothing behind. Exit status 3 (and a message) when postgresql-15 is
# not installed.
set -euo pipefail
# The server and the watchdog outlive this script: they must not keep what the caller left open (a
# test process's other pipes, whose readers would then never see their end). Start again without
# any descriptor past stderr; the whole `if` is read before it runs, so closing the script's own
# descriptor is safe.
if [ -z "${PG_TEST_SERVER_FDS_CLOSED:-}" ]; then
  for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] && eval "exec $fd>&-"
  done 2>/dev/null || true
  PG_TEST_SERVER_FDS_CLOSED=1 exec bash "$0" "$@"
fi
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_TEST_USER=${PG_TEST_USER:-segue-pgtest}
command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { sed -n '4,9p' "$0" >&2; exit 64; }

if [ ! -x "$PG_BIN/initdb" ] || [ ! -x "$PG_BIN/pg_ctl" ]; then
  echo "postgresql-15 is not installed ($PG_BIN/initdb missing): apt-get install postgresql-15" >&2
  exit 3
fi

# Runs a command as the server's user.
as_owner() {
  if [ "$(id -u)" = 0 ]; then setpriv --reuid="$PG_TEST_USER" --regid="$PG_TEST_USER" --init-groups -- "$@"
  else "$@"; fi
}

ensure_user() {
  [ "$(id -u)" = 0 ] || return 0
  id -u "$PG_TEST_USER" >/dev/null 2>&1 \
    || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$PG_TEST_USER"
}

print_env() {
  echo "PGHOST=$dir"
  echo "PGPORT=$(cat "$dir/port")"
  echo "PGUSER=segue"
  echo "PGDATABASE=postgres"
}

pg_ctl_start() {
  as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null
}

case "$command" in
  start)
    ensure_user
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown "$PG_TEST_USER:" "$dir"
    chmod 0700 "$dir"
    as_owner "$PG_BIN/initdb" -D "$dir/data" --username=segue --auth=trust --encoding=UTF8 --locale=C \
      --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    port=$(( 20000 + RANDOM % 40000 ))
    echo "$port" >"$dir/port"
    cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$dir'
port = $port
shared_buffers = 32MB
max_connections = 60
log_min_messages = warning
CONF
    pg_ctl_start || { cat "$dir/server.log" >&2; exit 1; }
    if [ "${3:-}" = "--watch" ] && [ -n "${4:-}" ]; then
      watched=$4
      setsid bash -c "while kill -0 $watched 2>/dev/null; do sleep 1; done; '$0' remove '$dir'" \
        </dev/null >/dev/null 2>&1 &
    fi
    print_env
    ;;
  stop)
    as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m "${3:-fast}" -w stop >/dev/null
    ;;
  restart)
    pg_ctl_start || { tail -20 "$dir/server.log" >&2; exit 1; }
    ;;
  remove)
    if [ -d "$dir/data" ]; then
      as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  env)
    print_env
    ;;
  *)
    sed -n '4,9p' "$0" >&2
    exit 64
    ;;
esac
