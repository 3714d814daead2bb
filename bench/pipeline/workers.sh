#!/usr/bin/env bash
# Scale-out throughput (issue 22, docs/scale-out.md): the full load of a
# 12-table CDA export by 1 worker and by N workers (default 2) of one pipeline
# sharing a PostgreSQL ledger and SQL catalog, each worker with
# `[performance] threads = 1`. Each run starts the workers (continuous `floe
# run`, each its own state dir) at once and times until the ledger holds every
# file committed; runs alternate 1 / N workers (FLOE_BENCH_REPEATS pairs,
# default 3). Prints the medians, their ratio and the median of each pair's
# own ratio (issue 22's target: N = 2 in <= 0.6x the wall time of 1).
#   bench/pipeline/workers.sh [N]
# FLOE_BENCH_SPLIT=1 measures this machine's ceiling instead: the N side runs
# N separate pipelines (one worker each, the same PostgreSQL ledger and
# catalog) over disjoint parts of the tables, dealt by size in a snake draft,
# with no lease shared and no hand-over: what N floe processes sharing the
# machine reach without any coordination.
# Env: FLOE_BIN (default build/floe, a Release build), FLOE_BENCH_DIR (default
# /tmp; the export is cached in $FLOE_BENCH_DIR/floe-bench-workers/export),
# FLOE_BENCH_PG_URI (a server to use; by default one is started with
# scripts/pg_test_server.sh and fsync on), FLOE_BENCH_ROWS (ids per table,
# default 160000).
set -euo pipefail
cd "$(dirname "$0")/../.."
workers="${1:-2}"
floe="$(realpath "${FLOE_BIN:-build/floe}")"
repeats="${FLOE_BENCH_REPEATS:-3}"
rows="${FLOE_BENCH_ROWS:-160000}"
cache="${FLOE_BENCH_DIR:-/tmp}/floe-bench-workers-$rows"
if [ ! -f "$cache/export/manifest.json" ]; then
  rm -rf "$cache"; mkdir -p "$cache"
  echo "generating the 12-table export in $cache/export" >&2
  nice -n 10 "$floe" demo generate "$cache/export" --seed 3 --rows "$rows" --tables 12 --folders 16 \
    --files-per-folder 4 --no-uncommitted-folder >"$cache/generate.txt"
fi
pids=()
bench_cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  [ -n "${PSQL_PID:-}" ] && kill -TERM "$PSQL_PID" 2>/dev/null || true
  wait 2>/dev/null || true
}
. bench/pipeline/pg_server.sh floe-workers-bench
# One psql session answers every poll. Before, each poll (every 50 ms) started
# a psql and a PostgreSQL connection in a subshell: ~0.5 core of the 2, taken
# from the workers being measured (more so from 2 workers than from 1, which
# left a core idle).
# (stdbuf: psql buffers its output to a pipe until it exits.)
coproc PSQL { exec stdbuf -oL psql "$pg_uri" -qtA 2>/dev/null; }
# The wait between polls must not fork either: a `sleep` process every 50 ms
# cost ~13% of a core on this VM (fork and exec, bash's and sleep's), again
# taken from 2 workers more than from 1. `read -t` on a pipe that never gets
# data waits in bash itself.
exec {nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$nap_fd" _ || true; }
committed_count=0
poll_committed() {  # $@ pipeline names; sets committed_count, their sum (0 before every ledger exists)
  local sum="SELECT 0" one
  for one in "$@"; do sum="$sum + (SELECT count(*) FROM floe_ledger_$one.files WHERE state = 'committed')"; done
  printf "%s;\nSELECT 'end-of-poll';\n" "$sum" >&"${PSQL[1]}"
  committed_count=0
  local line
  while true; do
    read -t 30 -r -u "${PSQL[0]}" line || { echo "the psql session stopped answering" >&2; exit 1; }
    [ "$line" = end-of-poll ] && break
    committed_count="$line"
  done
}
# FLOE_BENCH_SPLIT: table directories dealt largest first, snake order, into $workers parts.
split_parts=()
if [ -n "${FLOE_BENCH_SPLIT:-}" ]; then
  mapfile -t split_parts < <(du -sb "$cache"/export/*/ | sort -rn | awk -v n="$workers" '
    { t = $2; sub(/\/$/, "", t); sub(/.*\//, "", t); k = (NR - 1) % (2 * n); p = k < n ? k : 2 * n - 1 - k
      part[p] = part[p] (part[p] == "" ? "" : ", ") "\"" t "\"" }
    END { for (i = 0; i < n; i++) print part[i] }')
fi
expected="$(find "$cache/export" -name '*.parquet' | wc -l)"
write_config() {  # $1 file, $2 pipeline name, $3 state dir, [$4 include list, TOML]
  cat >"$1" <<TOML
name = "$2"
[source]
format = "cda"
uri = "$cache/export"
${4:+include = [$4]}
[catalog]
type = "sql"
uri = "$pg_uri"
name = "$2"
warehouse = "$work/warehouse-$2"
[target]
namespace = "cda"
[trigger]
interval = "200ms"
[performance]
threads = 1
[maintenance]
enabled = false
[state]
uri = "$pg_uri"
dir = "$3"
TOML
}
: >"$work/runs.tsv"
many_label="$workers workers of one pipeline"
[ ${#split_parts[@]} -gt 0 ] && many_label="$workers separate pipelines (FLOE_BENCH_SPLIT: the ceiling)"
echo "$repeats pairs of full loads of $expected files, 12 tables: 1 worker, then $many_label (threads = 1 each)" >&2
for r in $(seq "$repeats"); do
  for n in 1 "$workers"; do
    name="bench_$$_w${n}_$r"
    pids=()
    names=()  # the pipelines of this run
    start="$(date +%s.%N)"
    for w in $(seq "$n"); do
      if [ "$n" -gt 1 ] && [ ${#split_parts[@]} -gt 0 ]; then
        pipeline="${name}_p$w" include="${split_parts[$((w - 1))]}"
      else
        pipeline="$name" include=""
      fi
      [[ " ${names[*]} " == *" $pipeline "* ]] || names+=("$pipeline")
      write_config "$work/$name-$w.toml" "$pipeline" "$work/state-$name-$w" "$include"
      FLOE_PIPELINE_TRACE="${FLOE_BENCH_TRACE_DIR:+$FLOE_BENCH_TRACE_DIR/$name-$w.jsonl}" \
        "$floe" run "$work/$name-$w.toml" >"$work/$name-$w.log" 2>&1 &
      pids+=("$!")
    done
    until poll_committed "${names[@]}"; [ "$committed_count" -ge "$expected" ]; do
      for pid in "${pids[@]}"; do
        kill -0 "$pid" 2>/dev/null || { echo "a worker exited:" >&2; tail -5 "$work/$name"-*.log >&2; exit 1; }
      done
      nap 0.05
    done
    end="$(date +%s.%N)"
    for pid in "${pids[@]}"; do kill -TERM "$pid"; done
    wait "${pids[@]}" 2>/dev/null || true  # not the psql coprocess, which stays
    pids=()
    # The pipeline's ledger and catalog rows go (a server given in FLOE_BENCH_PG_URI outlives the bench).
    for one in "${names[@]}"; do
      psql "$pg_uri" -qc "DROP SCHEMA floe_ledger_$one CASCADE; DELETE FROM iceberg_tables WHERE catalog_name = '$one'; DELETE FROM iceberg_namespace_properties WHERE catalog_name = '$one'" >/dev/null 2>&1 || true
    done
    printf '%s\t%s\n' "$n" "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')" >>"$work/runs.tsv"
    echo "  $n worker(s): $(tail -1 "$work/runs.tsv" | cut -f2) s" >&2
  done
done
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
of() { awk -F'\t' -v n="$1" '$1 == n {print $2}' "$work/runs.tsv" | median; }
one="$(of 1)" many="$(of "$workers")"
echo "| workers (threads = 1 each) | wall to every file committed (median) |"
echo "|---|---|"
echo "| 1 | ${one} s |"
echo "| $workers | ${many} s |"
awk -v a="$one" -v b="$many" -v n="$workers" 'BEGIN {printf "| %d / 1 | %.3fx the wall time (ratio of the medians) |\n", n, b/a}'
# This VM's CPU speed drifts by up to ~2x over minutes (a spin loop pinned to
# one vCPU took 0.9 s, then 1.7 s). Each pair's own ratio (N workers over the
# 1-worker run just before) cancels drift slower than a pair, so their median
# is printed too.
pair_ratio="$(awk -F'\t' -v n="$workers" '$1 == 1 {one = $2} $1 == n && one {print $2 / one}' "$work/runs.tsv" | median)"
printf '| %d / 1, pair by pair | %.3fx (median of %d pairs) |\n' "$workers" "$pair_ratio" "$repeats"
echo "runs: $(tr '\t\n' ' ;' <"$work/runs.tsv")"
echo "load: $(uptime)"
