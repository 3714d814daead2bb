# Sourced by the pipeline benches that need PostgreSQL (pg_ledger.sh,
# workers.sh): a work directory $work (readable by the server's user) and
# $pg_uri, the server in FLOE_BENCH_PG_URI or one started in $work/pg with
# fsync on, as in production. On exit, `bench_cleanup` (a function the bench
# may define: its own processes) runs, then the started server stops and
# $work goes. Expects $1 = the work directory's name prefix.
work="$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")"
chmod 755 "$work"  # the PostgreSQL server runs as user postgres when started as root
pg_uri="${FLOE_BENCH_PG_URI:-}"
pg_server_cleanup() {
  if declare -F bench_cleanup >/dev/null; then bench_cleanup; fi
  [ -z "${FLOE_BENCH_PG_URI:-}" ] && scripts/pg_test_server.sh stop "$work/pg" || true
  rm -rf "$work"
}
trap pg_server_cleanup EXIT
if [ -z "$pg_uri" ]; then
  pg_uri="$(FLOE_PG_FSYNC=on scripts/pg_test_server.sh start "$work/pg")"
fi
