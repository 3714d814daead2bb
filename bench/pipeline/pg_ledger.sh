#!/usr/bin/env bash
# The ledger's cost in PostgreSQL ([state] uri) against SQLite (the default)
# for one worker: the full load of an export (bench/pipeline/run.sh's sizes),
# in batches of FLOE_BENCH_BATCH_FILES files (default 8, so the ledger works:
# one batch per 8 files instead of one per table), interleaved run by run
# (FLOE_BENCH_REPEATS pairs, default 3), both with a SQLite catalog; medians
# of wall and CPU (floe's; the PostgreSQL server's own CPU is not counted)
# and their ratio (issue 22's target: within 10%).
#   bench/pipeline/pg_ledger.sh [S|M|L]
# Env: FLOE_BIN (default build/floe, a Release build), FLOE_BENCH_DIR (default
# /tmp; the export is cached in $FLOE_BENCH_DIR/floe-bench-<size>/export, as
# run.sh keeps it), FLOE_BENCH_PG_URI (a server to use; by default one is
# started with scripts/pg_test_server.sh and fsync on, as in production).
set -euo pipefail
cd "$(dirname "$0")/../.."
size="${1:-M}"
. bench/pipeline/export.sh
batch_files="${FLOE_BENCH_BATCH_FILES:-8}"
. bench/pipeline/pg_server.sh floe-pg-ledger-bench
write_config() {  # $1 file, $2 pipeline name, $3 [state] lines
  cat >"$1" <<TOML
name = "$2"
[source]
format = "cda"
uri = "$cache/export"
[catalog]
type = "sql"
uri = "sqlite://$work/catalog.db"
warehouse = "$work/warehouse"
[target]
namespace = "cda"
[trigger]
max_files_per_batch = $batch_files
[state]
dir = "$work/state"
$3
TOML
}
: >"$work/runs.tsv"
echo "$repeats pairs of full loads ($size, $batch_files files per batch): SQLite ledger, PostgreSQL ledger" >&2
for r in $(seq "$repeats"); do
  for mode in sqlite postgresql; do
    rm -rf "$work/catalog.db" "$work/warehouse" "$work/state"
    name="bench_$r"
    if [ "$mode" = postgresql ]; then
      write_config "$work/pipeline.toml" "$name" "uri = \"$pg_uri\""
    else
      write_config "$work/pipeline.toml" "$name" ""
    fi
    /usr/bin/time -v -o "$work/time.txt" "$floe" run "$work/pipeline.toml" --once >"$work/$mode-$r.log" 2>&1
    printf '%s\t%s\t%s\n' "$mode" "$(time_wall "$work/time.txt")" "$(time_cpu "$work/time.txt")" >>"$work/runs.tsv"
  done
done
of() { awk -F'\t' -v m="$1" -v c="$2" '$1 == m {print $c}' "$work/runs.tsv" | median; }
sw="$(of sqlite 2)" sc="$(of sqlite 3)" pw="$(of postgresql 2)" pc="$(of postgresql 3)"
echo "| ledger | wall (median) | floe CPU (median) |"
echo "|---|---|---|"
echo "| SQLite (ledger.db) | ${sw} s | ${sc} s |"
echo "| PostgreSQL ([state] uri) | ${pw} s | ${pc} s |"
awk -v sw="$sw" -v pw="$pw" -v sc="$sc" -v pc="$pc" \
  'BEGIN {printf "| PostgreSQL / SQLite | %+.1f%% wall | %+.1f%% CPU |\n", (pw/sw-1)*100, (pc/sc-1)*100}'
echo "runs: $(tr '\t\n' ' ;' <"$work/runs.tsv")"
echo "load: $(uptime)"
