#!/usr/bin/env bash
# End-to-end pipeline benchmark beside DuckDB (issue "Performance"), one size:
#   bench/pipeline/run.sh [S|M|L]          (default S)
# Workload: `floe demo generate` CDA export, 3 tables of 20 columns, many small
# snappy part files, ~40% updates, 5% deletes, out-of-order changes, one
# schema change (added columns, int->bigint), one metrics-only folder:
#   S ~100k committed change rows, M ~1M, L ~10M (L: generation and the
#   DuckDB runs take tens of minutes; the freshness step replays the whole
#   change stream per landing, so give L FLOE_BENCH_LANDINGS=20 or fewer, or
#   skip it). Generation runs under `nice -n 10`.
# Steps, printed as a Markdown table at the end:
#   a) full load: `floe run --once` into an empty warehouse (SQLite catalog)
#      under /usr/bin/time -v, beside DuckDB (duckdb_baseline.mjs) copying and
#      merging the same committed part files into zstd Parquet, 1 thread and
#      all cores;
#   b) incremental: one appended folder (--append-round) into the loaded
#      table, `floe run --once` wall time;
#   c) idle: `floe run --once` with nothing new, median wall of 5;
#   d) freshness: `floe run` with a 1 s trigger interval, landing to visible
#      snapshot over FLOE_BENCH_LANDINGS landings (freshness.mjs), then the
#      idle daemon's CPU and RSS;
#   e) key index: bytes per live key of the saved index files (runs and
#      manifests), and peak RSS against 512 MB + 32 B per key;
#   f) row stage: the full load again with five [[expectations]] (warn) and
#      three [transform.columns] over the columns every table has,
#      interleaved run by run with the plain full load (FLOE_BENCH_REPEATS
#      pairs), medians of CPU and wall and their ratio (target: within 10%).
# Env: FLOE_BIN (default build/floe, a Release build), FLOE_BENCH_DIR (default
# /tmp; the export is cached in $FLOE_BENCH_DIR/floe-bench-<size>/export),
# FLOE_BENCH_REPEATS (default 3; medians are printed), FLOE_BENCH_LANDINGS
# (default 100), FLOE_BENCH_SKIP (space-separated steps not to run, printed
# as "not run": duckdb-copy, duckdb-merge, duckdb-all-cores, idle,
# freshness, row-stage; e.g. for L: FLOE_BENCH_REPEATS=1 FLOE_BENCH_SKIP="duckdb-merge
# duckdb-all-cores freshness"). Needs /usr/bin/time, sqlite3 and node (tests/node_modules).
set -euo pipefail
cd "$(dirname "$0")/../.."
size="${1:-S}"
. bench/pipeline/export.sh
landings="${FLOE_BENCH_LANDINGS:-100}"
cores="$(nproc)"
skip=" ${FLOE_BENCH_SKIP:-} "
skipped() { [[ "$skip" == *" $1 "* ]]; }
json_field() { node -e 'const o=JSON.parse(process.argv[1]); console.log(process.argv[2].split(".").reduce((v,k)=>v[k],o))' "$1" "$2"; }

committed_rows="$(sed -n 's/.*committed_rows \([0-9]*\);.*/\1/p' "$cache/generate.txt")"
live_keys="$(grep -o '[a-zA-Z_]*=[0-9]*' "$cache/generate.txt" | awk -F= '{s+=$2} END {print s}')"
source_files="$(find "$cache/export" -name '*.parquet' | wc -l)"
source_bytes="$(find "$cache/export" -name '*.parquet' -printf '%s\n' | awk '{s+=$1} END {print s}')"

# A working copy: the incremental and freshness steps append to the export.
work="$cache/run"
rm -rf "$work"; mkdir -p "$work"
cp -r "$cache/export" "$work/export"
write_config() {  # $1 file, $2 extra [trigger] lines
  cat >"$1" <<TOML
name = "bench"
[source]
format = "cda"
uri = "$work/export"
[catalog]
type = "sql"
uri = "sqlite://$work/catalog.db"
warehouse = "$work/warehouse"
[target]
namespace = "cda"
[trigger]
$2
[state]
dir = "$work/state"
TOML
}
write_config "$work/pipeline.toml" ""
write_config "$work/continuous.toml" 'interval = "1s"'
# f) the same load with a row stage: five expectations and three derived columns.
cp "$work/pipeline.toml" "$work/expect.toml"
cat >>"$work/expect.toml" <<'TOML'
[transform.columns]
create_date = "to_date(createtime)"
update_year = "year(updatetime)"
change_kind = "CASE WHEN gwcbi___operation = 4 THEN 'update' ELSE 'insert' END"
[[expectations]]
name = "id_positive"
expr = "id > 0"
[[expectations]]
name = "publicid_shape"
expr = "length(publicid) BETWEEN 3 AND 64"
[[expectations]]
name = "updated_after_created"
expr = "updatetime >= createtime"
[[expectations]]
name = "beanversion_range"
expr = "beanversion BETWEEN 0 AND 1000000"
[[expectations]]
name = "retired_known"
expr = "retired IS NOT NULL"
TOML

# a) full load, floe.
echo "a) full load: floe, $repeats runs" >&2
: >"$work/floe-load.tsv"
for r in $(seq "$repeats"); do
  rm -rf "$work/catalog.db" "$work/warehouse" "$work/state"
  /usr/bin/time -v -o "$work/time-load-$r.txt" "$floe" run "$work/pipeline.toml" --once >"$work/load-$r.log" 2>&1
  printf '%s\t%s\t%s\n' "$(time_wall "$work/time-load-$r.txt")" "$(time_cpu "$work/time-load-$r.txt")" \
    "$(time_rss "$work/time-load-$r.txt")" >>"$work/floe-load.tsv"
done
floe_wall="$(cut -f1 "$work/floe-load.tsv" | median)"
floe_cpu="$(cut -f2 "$work/floe-load.tsv" | median)"
floe_rss="$(cut -f3 "$work/floe-load.tsv" | sort -g | tail -1)"
# e) key index files right after the full load: each table's runs (keys-*.run) and manifests (index-*.bin).
index_bytes="$(find "$work/state" \( -name 'keys-*.run' -o -name 'index-*.bin' \) -printf '%s\n' |
  awk '{s+=$1} END {print s+0}')"

# f) row stage: plain and staged full loads interleaved, pair by pair.
: >"$work/stage.tsv"
if ! skipped row-stage; then
  echo "f) row stage: $repeats pairs of full loads, plain and with 5 expectations + 3 derived columns" >&2
  for r in $(seq "$repeats"); do
    for mode in plain expect; do
      rm -rf "$work/catalog.db" "$work/warehouse" "$work/state"
      toml="$work/pipeline.toml"; [ "$mode" = expect ] && toml="$work/expect.toml"
      /usr/bin/time -v -o "$work/time-stage.txt" "$floe" run "$toml" --once >"$work/stage-$mode-$r.log" 2>&1
      printf '%s\t%s\t%s\n' "$mode" "$(time_wall "$work/time-stage.txt")" "$(time_cpu "$work/time-stage.txt")" \
        >>"$work/stage.tsv"
    done
  done
  # The step ends with the plain table in place, as the later steps expect.
  rm -rf "$work/catalog.db" "$work/warehouse" "$work/state"
  "$floe" run "$work/pipeline.toml" --once >/dev/null 2>&1
fi
stage_of() { awk -F'\t' -v m="$1" -v c="$2" '$1 == m {print $c}' "$work/stage.tsv" | median; }
if [ -s "$work/stage.tsv" ]; then
  stage_plain_wall="$(stage_of plain 2)" stage_plain_cpu="$(stage_of plain 3)"
  stage_wall="$(stage_of expect 2)" stage_cpu="$(stage_of expect 3)"
else
  stage_plain_wall=NaN stage_plain_cpu=NaN stage_wall=NaN stage_cpu=NaN
fi

# a) full load, DuckDB.
declare -A duck_wall duck_cpu duck_rss duck_rows
for threads in 1 "$cores"; do
  for mode in copy merge; do
    duck_wall[$mode$threads]=NaN duck_cpu[$mode$threads]=NaN duck_rss[$mode$threads]=NaN
    duck_rows[$mode$threads]="not run"
    if skipped "duckdb-$mode" || { [ "$threads" != 1 ] && skipped duckdb-all-cores; }; then continue; fi
    echo "a) full load: DuckDB $mode, threads=$threads, $repeats runs" >&2
    : >"$work/duck.tsv"
    for r in $(seq "$repeats"); do
      rm -rf "$work/duckdb-out"
      out="$(node bench/pipeline/duckdb_baseline.mjs "$work/export" "$work/duckdb-out" "$mode" "$threads")"
      printf '%s\t%s\t%s\t%s\n' "$(json_field "$out" wall_s)" "$(json_field "$out" cpu_s)" \
        "$(json_field "$out" peak_rss_bytes)" "$(json_field "$out" rows_out)" >>"$work/duck.tsv"
    done
    duck_wall[$mode$threads]="$(cut -f1 "$work/duck.tsv" | median)"
    duck_cpu[$mode$threads]="$(cut -f2 "$work/duck.tsv" | median)"
    duck_rss[$mode$threads]="$(cut -f3 "$work/duck.tsv" | sort -g | tail -1)"
    duck_rows[$mode$threads]="$(cut -f4 "$work/duck.tsv" | head -1)"
  done
done
rm -rf "$work/duckdb-out"

# b) incremental: rounds 1..repeats, each one folder per table.
echo "b) incremental: $repeats appended folders" >&2
: >"$work/incremental.tsv"
for r in $(seq "$repeats"); do
  appended="$("$floe" demo generate "$work/export" --append-round "$r" --append-folders 1)"
  appended_rows="$(sed -n 's/.*, rows \([0-9]*\),.*/\1/p' <<<"$appended")"
  /usr/bin/time -v -o "$work/time-incr-$r.txt" "$floe" run "$work/pipeline.toml" --once >"$work/incr-$r.log" 2>&1
  printf '%s\t%s\t%s\n' "$(time_wall "$work/time-incr-$r.txt")" "$(time_cpu "$work/time-incr-$r.txt")" \
    "$appended_rows" >>"$work/incremental.tsv"
done
incr_wall="$(cut -f1 "$work/incremental.tsv" | median)"
incr_cpu="$(cut -f2 "$work/incremental.tsv" | median)"
incr_rows="$(cut -f3 "$work/incremental.tsv" | median)"

# c) idle --once.
echo "c) idle: 5 runs with nothing new" >&2
: >"$work/idle.txt"
skipped idle && echo NaN >"$work/idle.txt"
for r in $(skipped idle || echo 1 2 3 4 5); do
  start="$EPOCHREALTIME"
  "$floe" run "$work/pipeline.toml" --once --quiet >/dev/null
  end="$EPOCHREALTIME"
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f\n", (b-a)*1000}' >>"$work/idle.txt"
done
idle_ms="$(median <"$work/idle.txt")"

# d) freshness.
echo "d) freshness: $landings landings" >&2
if skipped freshness; then
  fresh='null'
else
  fresh="$(node bench/pipeline/freshness.mjs "$floe" "$work/continuous.toml" "$work/export" "$work/catalog.db" \
    "$landings" $((repeats + 1)) 10)"
fi

load="$(cut -d' ' -f1-3 /proc/loadavg)"
node - "$size" "$committed_rows" "$live_keys" "$source_files" "$source_bytes" "$cores" "$load" \
  "$floe_wall" "$floe_cpu" "$floe_rss" "$index_bytes" \
  "${duck_wall[copy1]}" "${duck_cpu[copy1]}" "${duck_rss[copy1]}" "${duck_rows[copy1]}" \
  "${duck_wall[merge1]}" "${duck_cpu[merge1]}" "${duck_rss[merge1]}" "${duck_rows[merge1]}" \
  "${duck_wall[copy$cores]}" "${duck_cpu[copy$cores]}" "${duck_rss[copy$cores]}" \
  "${duck_wall[merge$cores]}" "${duck_cpu[merge$cores]}" "${duck_rss[merge$cores]}" \
  "$incr_wall" "$incr_cpu" "$incr_rows" "$idle_ms" "$fresh" "$repeats" \
  "$stage_plain_wall" "$stage_plain_cpu" "$stage_wall" "$stage_cpu" <<'JS'
const a = process.argv.slice(2);
const [size, committed, keys, files, bytes, cores, load] = a;
const n = (i) => Number(a[i]);
const [fWall, fCpu, fRss, indexBytes] = [n(7), n(8), n(9), n(10)];
const duck = (i) => ({ wall: n(i), cpu: n(i + 1), rss: n(i + 2) });
const c1 = duck(11), m1 = duck(15), cN = duck(19), mN = duck(22);
const [iWall, iCpu, iRows, idle] = [n(25), n(26), n(27), n(28)];
const fresh = JSON.parse(a[29]);
const repeats = a[30];
const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
const s = (x) => (Number.isNaN(x) ? 'not run' : `${x.toFixed(2)} s`);
const ms = (x) => (Number.isNaN(Number(x)) ? 'not run' : `${x} ms`);
console.log(`size ${size}: ${Number(committed).toLocaleString('en')} committed change rows in ${files} part files (${mb(Number(bytes))}), ` +
  `${Number(keys).toLocaleString('en')} live keys after the load; DuckDB merge output ${a[18]} rows; ` +
  `${cores} cores, load average at the end ${load}; medians of ${repeats} runs`);
console.log('');
console.log('| full load | wall | CPU (user+sys) | peak RSS | floe wall ÷ it | floe CPU ÷ it |');
console.log('|---|---|---|---|---|---|');
console.log(`| floe run --once (merge, Iceberg commit) | ${s(fWall)} | ${s(fCpu)} | ${mb(fRss)} | | |`);
for (const [name, d] of [[`DuckDB plain copy, 1 thread`, c1], [`DuckDB SQL merge, 1 thread`, m1],
                         [`DuckDB plain copy, ${cores} threads`, cN], [`DuckDB SQL merge, ${cores} threads`, mN]]) {
  if (Number.isNaN(d.wall)) {
    console.log(`| ${name} | not run | | | | |`);
    continue;
  }
  console.log(`| ${name} | ${s(d.wall)} | ${s(d.cpu)} | ${mb(d.rss)} | ${(fWall / d.wall).toFixed(2)}× | ${(fCpu / d.cpu).toFixed(2)}× |`);
}
console.log('');
const bytesPerKey = indexBytes / Number(keys);
const rssBudget = 512e6 + 32 * Number(keys);
console.log('| other | figure | target |');
console.log('|---|---|---|');
console.log(`| incremental: ${iRows.toLocaleString('en')} rows (one folder per table, 3 commits), \`floe run --once\` wall | ${Math.round(iWall * 1000)} ms (CPU ${Math.round(iCpu * 1000)} ms) | < 1 s for 10k rows into L |`);
console.log(`| idle \`floe run --once\`, nothing new, median of 5 | ${ms(idle)} | < 100 ms |`);
if (fresh) {
  console.log(`| freshness, landing → first table's snapshot visible, p50 / p99 / max of ${fresh.landings} | ${Math.round(fresh.first_table_ms.p50)} / ${Math.round(fresh.first_table_ms.p99)} / ${Math.round(fresh.first_table_ms.max)} ms | p99 < 2 s |`);
  console.log(`| freshness, landing → all 3 tables visible, p50 / p99 / max | ${Math.round(fresh.all_tables_ms.p50)} / ${Math.round(fresh.all_tables_ms.p99)} / ${Math.round(fresh.all_tables_ms.max)} ms | |`);
  console.log(`| continuous daemon idle: CPU, RSS | ${fresh.idle_cpu_percent.toFixed(2)} % of a core, ${mb(fresh.idle_rss_bytes)} | |`);
} else {
  console.log('| freshness, continuous daemon idle | not run | p99 < 2 s |');
}
console.log(`| key index files, bytes per live key (tombstones included) | ${bytesPerKey.toFixed(1)} B | ≤ 16 B |`);
console.log(`| peak RSS of the full load vs 512 MB + 32 B × ${Number(keys).toLocaleString('en')} keys | ${mb(fRss)} vs ${mb(rssBudget)} | ≤ budget |`);
const [spWall, spCpu, sWall, sCpu] = [n(31), n(32), n(33), n(34)];
if (Number.isNaN(sWall)) {
  console.log('| full load with 5 expectations + 3 derived columns | not run | ≤ 10% over the plain load |');
} else {
  console.log(`| full load with 5 expectations + 3 derived columns, ${repeats} interleaved pairs: CPU / wall | ${s(sCpu)} / ${s(sWall)} vs plain ${s(spCpu)} / ${s(spWall)}: +${((sCpu / spCpu - 1) * 100).toFixed(1)} % CPU, +${((sWall / spWall - 1) * 100).toFixed(1)} % wall | ≤ 10% |`);
}
JS
