#!/usr/bin/env bash
# Parquet decode/encode throughput, floe beside DuckDB, single-threaded, on a
# CDA-shaped file (20 columns: ints, decimals, timestamps, short and long
# strings, 5-20% nulls) written by DuckDB with snappy.
#   bench/parquet/run.sh [ROWS] [REPEATS]     (defaults: 1000000 rows, 3 repeats)
# Needs a release build in build/ (cmake -DCMAKE_BUILD_TYPE=Release).
set -euo pipefail
cd "$(dirname "$0")/../.."
rows="${1:-1000000}"; repeats="${2:-3}"
file="${FLOE_BENCH_DIR:-/tmp}/floe-bench-cda-$rows.parquet"
[ -f "$file" ] || node bench/parquet/make_cda_file.mjs "$file" "$rows" 1 >/dev/null
cmake --build build --target parquet_throughput >/dev/null
floe_json="$(build/bench/parquet_throughput "$file" "$repeats")"
duck_json="$(node bench/parquet/duckdb_throughput.mjs "$file" "$repeats")"
node -e '
const f = JSON.parse(process.argv[1]), d = JSON.parse(process.argv[2]);
const mb = f.uncompressed_bytes / 1e6;
const row = (name, fs, ds) => console.log(
  `| ${name} | ${fs.toFixed(3)} s | ${(mb / fs).toFixed(0)} MB/s | ${(f.rows / fs / 1e6).toFixed(2)} M rows/s | ${ds.toFixed(3)} s | ${(mb / ds).toFixed(0)} MB/s | ${(ds / fs).toFixed(2)}x |`);
console.log(`file: ${process.argv[3]}, ${f.rows} rows, ${mb.toFixed(1)} MB uncompressed, ${(f.compressed_bytes / 1e6).toFixed(1)} MB compressed`);
console.log("| | floe | floe MB/s | floe rows/s | DuckDB | DuckDB MB/s | floe speed vs DuckDB |");
console.log("|---|---|---|---|---|---|---|");
row("decode", f.decode_s, d.decode_s);
row("encode (snappy)", f.encode_s, d.encode_s);
' "$floe_json" "$duck_json" "$file"
