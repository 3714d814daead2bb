#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server (Debian's postgresql package) for the
# tests, on 127.0.0.1 and a free port, and prints its URI on stdout.
#   scripts/pg_test_server.sh start DIR   -> postgresql://floe:floe@127.0.0.1:PORT/floe
#   scripts/pg_test_server.sh stop DIR
# FLOE_PG_FSYNC=on starts it with fsync on (benchmarks); tests run with it off.
# As root it runs the server as the 'postgres' system user (PostgreSQL refuses root).
set -euo pipefail
cmd="${1:?start|stop}"; dir="${2:?data directory}"
bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -x "$bindir/initdb" ] || { echo "pg_test_server: PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$cmd" in
  start)
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=${FLOE_PG_FSYNC:-off} -c max_connections=100" start >/dev/null
    as_owner "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -q -c "CREATE USER floe PASSWORD 'floe'" \
      -c "CREATE DATABASE floe OWNER floe" >/dev/null
    echo "postgresql://floe:floe@127.0.0.1:$port/floe"
    ;;
  stop)
    [ -d "$dir/data" ] && as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
