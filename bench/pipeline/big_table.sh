#!/usr/bin/env bash
# Huge-table benchmark (issue 23): one table of KEYS live keys, then COMMITS
# folders of 10,000 changes each (30% updates of random existing keys, 5%
# deletes, the rest new keys), committed one at a time.
#   bench/pipeline/big_table.sh [KEYS] [COMMITS]      (default 100000000 20)
# Steps, printed as a Markdown table at the end:
#   a) the export: `big_table_export init` (bench/pipeline/big_table_export.cc:
#      one narrow CDA table, ids 1..KEYS inserted once, 1M rows per part
#      file), its time — the fast path `floe demo generate` cannot take at
#      this size (it replays its whole change stream in memory);
#   b) the full load: `floe run --once` under /usr/bin/time -v (wall, CPU,
#      peak RSS), then the key index's bytes on disk per key; b2) `floe
#      maintain` once after it (wall, peak RSS), as after any initial load,
#      and the first commit after that, whose key index catches up from the
#      rows the compaction moved;
#   c) COMMITS commits with `floe run --once` each (a 10,000-change folder
#      appended before each): wall per commit p50 / p99 / max, peak RSS;
#   d) COMMITS more in a continuous `floe run` (interval 1 s, trace on):
#      each batch's time from the trace (p50 / p99 / max), landing to
#      visible snapshot, and the daemon's peak RSS (/usr/bin/time -v);
#   e) the key index's bytes on disk per key after the commits.
# Env: FLOE_BIN (default build/floe), BIG_TABLE_EXPORT (default
# build/bench/big_table_export), FLOE_BENCH_DIR (default /work/bench-data:
# ~3 GB of export and ~3 GB of table per 100M keys; check `df -h` first),
# FLOE_BENCH_SKIP (space-separated steps not to run: once, continuous),
# FLOE_BENCH_KEEP=1 keeps the run's data (deleted at the end otherwise; the
# generated export stays in $FLOE_BENCH_DIR/big-table-export-KEYS for the
# next run).
set -euo pipefail
cd "$(dirname "$0")/../.."
keys="${1:-100000000}"
commits="${2:-20}"
floe="$(realpath "${FLOE_BIN:-build/floe}")"
export_tool="$(realpath "${BIG_TABLE_EXPORT:-build/bench/big_table_export}")"
root="${FLOE_BENCH_DIR:-/work/bench-data}/big-table-$keys"
skip=" ${FLOE_BENCH_SKIP:-} "
skipped() { [[ "$skip" == *" $1 "* ]]; }
time_wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$1"; }
time_cpu() { awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$1"; }
time_rss() { awk -F': ' '/Maximum resident set size/ {print $2*1024}' "$1"; }
# p50 / p99 / max of a column of numbers.
quantiles() { sort -g | awk '{v[NR]=$1} END {i=int(NR*0.99+0.999); if (i<1) i=1; printf "%.3f %.3f %.3f\n", v[int((NR+1)/2)], v[i], v[NR]}'; }
index_bytes() { find "$root/state" \( -name 'keys-*.run' -o -name 'index-*.bin' \) -printf '%s\n' | awk '{s+=$1} END {print s+0}'; }
metadata_location() { sqlite3 "$root/catalog.db" "select metadata_location from iceberg_tables where table_name = 'cc_claimtransaction'" 2>/dev/null || true; }

# The export is generated once per size (kept in $cache, 1M rows per part file) and copied per run.
cache="${FLOE_BENCH_DIR:-/work/bench-data}/big-table-export-$keys"
if [ ! -f "$cache/export/manifest.json" ]; then
  rm -rf "$cache"; mkdir -p "$cache"
  echo "a) export: $keys keys in $cache/export" >&2
  /usr/bin/time -v -o "$cache/time-export.txt" "$export_tool" init "$cache/export" --keys "$keys" \
    --files $(( (keys + 999999) / 1000000 )) >"$cache/export.log"
fi
rm -rf "$root"
mkdir -p "$root"
cp -r "$cache/export" "$root/export"
cp "$cache/time-export.txt" "$cache/export.log" "$root/"
cat >"$root/pipeline.toml" <<TOML
name = "big"
[source]
format = "cda"
uri = "$root/export"
[catalog]
type = "sql"
uri = "sqlite://$root/catalog.db"
warehouse = "$root/warehouse"
[target]
namespace = "cda"
[state]
dir = "$root/state"
TOML
sed 's/^\[state\]/[trigger]\ninterval = "1s"\n[state]/' "$root/pipeline.toml" >"$root/continuous.toml"

echo "b) full load" >&2
load_start="$(cut -d' ' -f1 /proc/loadavg)"
/usr/bin/time -v -o "$root/time-load.txt" "$floe" run "$root/pipeline.toml" --once --quiet >"$root/load.log" 2>&1
load_end="$(cut -d' ' -f1 /proc/loadavg)"
load_index="$(index_bytes)"
# b2) the maintenance a user runs once after an initial load (docs/operations.md):
#     the load's files (one per memory-budget batch) are packed to the target
#     size and the key index caught up, so the commits below measure the
#     steady state rather than this one-time rewrite of the whole table.
echo "b2) floe maintain after the load, then the first commit (its key index catches up)" >&2
/usr/bin/time -v -o "$root/time-maintain.txt" "$floe" maintain "$root/pipeline.toml" >"$root/maintain.log" 2>&1
# `floe maintain` leaves the key index as it was; the next `floe run` catches
# it up from the rows the compaction moved (proportional to them: here the
# whole table, once). Timed apart from the steady-state commits below.
"$export_tool" append "$root/export" --changes 10000 >>"$root/append.log"
/usr/bin/time -v -o "$root/time-catchup.txt" "$floe" run "$root/pipeline.toml" --once --quiet >"$root/catchup.log" 2>&1

: >"$root/once.tsv"
once_load="n/a"
if ! skipped once; then
  echo "c) $commits commits, floe run --once each" >&2
  once_load="$(cut -d' ' -f1 /proc/loadavg)"
  for c in $(seq "$commits"); do
    "$export_tool" append "$root/export" --changes 10000 >>"$root/append.log"
    /usr/bin/time -v -o "$root/time-once-$c.txt" "$floe" run "$root/pipeline.toml" --once --quiet >"$root/once-$c.log" 2>&1
    printf '%s\t%s\t%s\n' "$(time_wall "$root/time-once-$c.txt")" "$(time_cpu "$root/time-once-$c.txt")" \
      "$(time_rss "$root/time-once-$c.txt")" >>"$root/once.tsv"
  done
  once_load="$once_load → $(cut -d' ' -f1 /proc/loadavg)"
fi

: >"$root/landings.tsv"
cont_load="n/a"
if ! skipped continuous; then
  echo "d) $commits commits into a continuous floe run" >&2
  cont_load="$(cut -d' ' -f1 /proc/loadavg)"
  FLOE_PIPELINE_TRACE="$root/trace.jsonl" /usr/bin/time -v -o "$root/time-daemon.txt" \
    "$floe" run "$root/continuous.toml" --quiet >"$root/daemon.log" 2>&1 &
  daemon=$!
  sleep 3
  for c in $(seq "$commits"); do
    before="$(metadata_location)"
    start="$EPOCHREALTIME"
    "$export_tool" append "$root/export" --changes 10000 >>"$root/append.log"
    while [ "$(metadata_location)" = "$before" ]; do sleep 0.02; done
    end="$EPOCHREALTIME"
    awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", b-a}' >>"$root/landings.tsv"
    sleep 1.5  # the next landing finds the daemon between polls, as a steady source would
  done
  # The daemon is the child of /usr/bin/time (which ignores SIGINT), whatever FLOE_BIN is named.
  kill -INT "$(pgrep -P "$daemon" | head -1)" 2>/dev/null || kill -INT "$daemon"
  wait "$daemon" || true
  cont_load="$cont_load → $(cut -d' ' -f1 /proc/loadavg)"
fi
final_index="$(index_bytes)"
live_keys="$(awk '/keys/ {for (i=1;i<=NF;i++) if ($i=="keys") k=$(i+1)} END {gsub(",","",k); print k}' "$root/append.log" "$root/export.log" | tail -1)"
[ -n "$live_keys" ] || live_keys="$keys"

node - "$keys" "$commits" "$(time_wall "$root/time-export.txt")" "$(time_wall "$root/time-load.txt")" \
  "$(time_cpu "$root/time-load.txt")" "$(time_rss "$root/time-load.txt")" "$load_index" "$final_index" \
  "$live_keys" "$load_start → $load_end" "$once_load" "$cont_load" "$root" \
  "$(time_wall "$root/time-maintain.txt")" "$(time_rss "$root/time-maintain.txt")" \
  "$(time_wall "$root/time-catchup.txt")" "$(time_rss "$root/time-catchup.txt")" <<'JS'
const fs = require('fs');
const [keys, commits, exportS, loadWall, loadCpu, loadRss, loadIndex, finalIndex, liveKeys, loadAvg, onceAvg, contAvg, root,
  maintainWall, maintainRss, catchupWall, catchupRss] = process.argv.slice(2);
const q = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  if (v.length === 0) return null;
  return { p50: v[Math.floor((v.length - 1) / 2)], p99: v[Math.min(v.length - 1, Math.ceil(v.length * 0.99) - 1)], max: v[v.length - 1] };
};
const lines = (f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim().split('\n').filter(Boolean) : []);
const once = lines(`${root}/once.tsv`).map((l) => l.split('\t').map(Number));
const landings = lines(`${root}/landings.tsv`).map(Number);
const batches = lines(`${root}/trace.jsonl`).map((l) => JSON.parse(l)).filter((e) => e.event === 'batch').map((e) => e.ms / 1000);
const daemonRss = fs.existsSync(`${root}/time-daemon.txt`)
  ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(fs.readFileSync(`${root}/time-daemon.txt`, 'utf8'))[1]) * 1024 : NaN;
const mb = (b) => (Number.isNaN(b) ? 'n/a' : `${(b / 1048576).toFixed(0)} MiB`);
const fmt = (s) => (s ? `${s.p50.toFixed(2)} / ${s.p99.toFixed(2)} / ${s.max.toFixed(2)} s` : 'not run');
console.log(`${Number(keys).toLocaleString('en')} keys, ${commits} commits of 10,000 changes per mode; live keys at the end ${Number(liveKeys).toLocaleString('en')}`);
console.log('');
console.log('| figure | value | load average | target |');
console.log('|---|---|---|---|');
console.log(`| export generation (big_table_export init) | ${Number(exportS).toFixed(1)} s | | |`);
console.log(`| full load, floe run --once: wall, CPU, peak RSS | ${Number(loadWall).toFixed(1)} s, ${Number(loadCpu).toFixed(1)} s, ${mb(Number(loadRss))} | ${loadAvg} | |`);
console.log(`| key index on disk after the load | ${(loadIndex / keys).toFixed(2)} B per key | | ≤ 16 B |`);
console.log(`| floe maintain after the load (packs the load's files once): wall, peak RSS | ${Number(maintainWall).toFixed(1)} s, ${mb(Number(maintainRss))} | | |`);
console.log(`| the first commit after it (key index caught up from the moved rows, once): wall, peak RSS | ${Number(catchupWall).toFixed(1)} s, ${mb(Number(catchupRss))} | | |`);
console.log(`| commit, floe run --once per folder: wall p50 / p99 / max | ${fmt(q(once.map((r) => r[0])))} | ${onceAvg} | ≤ 1 s |`);
console.log(`| commit, floe run --once: peak RSS (max of ${once.length}) | ${once.length ? mb(Math.max(...once.map((r) => r[2]))) : 'not run'} | | ≤ 1 GiB |`);
console.log(`| commit in a continuous floe run: batch p50 / p99 / max (trace) | ${fmt(q(batches))} | ${contAvg} | ≤ 1 s |`);
console.log(`| continuous: landing → snapshot visible p50 / p99 / max (1 s poll) | ${fmt(q(landings))} | | |`);
console.log(`| continuous daemon peak RSS | ${mb(daemonRss)} | | ≤ 1 GiB |`);
console.log(`| key index on disk after the commits | ${(finalIndex / liveKeys).toFixed(2)} B per key | | ≤ 16 B |`);
JS
if [ "${FLOE_BENCH_KEEP:-0}" != 1 ]; then rm -rf "$root"; fi
