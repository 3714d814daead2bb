#!/usr/bin/env bash
# Text-format decode throughput, floe beside DuckDB, single-threaded, on the
# CDA-shaped 20-column table of bench/parquet (ints, decimals, timestamps,
# short and long strings, 5-20% nulls) exported by DuckDB's COPY as JSON lines
# and CSV. floe opens each file through its ChunkedReader (the scan that cuts
# chunks included) and decodes every column of every chunk; DuckDB
# aggregates every column. Two modes per format: the schema given (no type
# inference, no dialect sniffing) and each reader's own detection.
#   bench/formats/run.sh [ROWS] [REPEATS]     (defaults: 1000000 rows, 3 repeats)
# Needs a release build in build/ (cmake -DCMAKE_BUILD_TYPE=Release).
set -euo pipefail
cd "$(dirname "$0")/../.."
rows="${1:-1000000}"; repeats="${2:-3}"
dir="${FLOE_BENCH_DIR:-/tmp}"
parquet="$dir/floe-bench-cda-$rows.parquet"
jsonl="$dir/floe-bench-cda-$rows.jsonl"
csv="$dir/floe-bench-cda-$rows.csv"
[ -f "$parquet" ] || node bench/parquet/make_cda_file.mjs "$parquet" "$rows" 1 >/dev/null
schema="$(node bench/formats/make_text_files.mjs "$parquet" "$jsonl" "$csv")"
cmake --build build --target format_throughput >/dev/null
echo "load before: $(uptime)"
for format in jsonl csv; do
  file="$jsonl"; [ "$format" = csv ] && file="$csv"
  floe_known="$(build/bench/format_throughput "$format" "$file" "$repeats" "$schema")"
  floe_auto="$(build/bench/format_throughput "$format" "$file" "$repeats")"
  duck="$(node bench/formats/duckdb_text_throughput.mjs "$format" "$file" "$parquet" "$repeats")"
  node -e '
const k = JSON.parse(process.argv[1]), a = JSON.parse(process.argv[2]), d = JSON.parse(process.argv[3]);
const mb = k.bytes / 1e6;
const row = (mode, f, p) => console.log(`| ${k.format} ${mode} | ${f.toFixed(3)} s | ${(mb / f).toFixed(0)} MB/s | ${p.toFixed(3)} s | ${(mb / p).toFixed(0)} MB/s | ${(p / f).toFixed(2)}x |`);
console.log(`file: ${process.argv[4]}, ${k.rows} rows, ${mb.toFixed(1)} MB`);
console.log("| | floe | floe MB/s | DuckDB | DuckDB MB/s | floe speed vs DuckDB |");
console.log("|---|---|---|---|---|---|");
row("schema given", k.seconds, d.known_s);
row("detected", a.seconds, d.auto_s);
' "$floe_known" "$floe_auto" "$duck" "$file"
done
echo "load after: $(uptime)"
