#!/usr/bin/env bash
# README's first command ends here: a short tour of what floe does today.
#   scripts/demo.sh [DIR]   (default: ./demo)
# Today (the ingestion pipeline is not built yet) the tour generates a
# CDA-shaped Parquet export file, inspects it with floe, rewrites it with
# floe's own Parquet writer (zstd) and reads floe's output back with DuckDB,
# an independent reader.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$(realpath -m "${1:-demo}")"
floe="${FLOE_BIN:-build/floe}"
mkdir -p "$dir"
echo "== generating a CDA-shaped export file (100k rows, 20 columns) with DuckDB"
node bench/parquet/make_cda_file.mjs "$dir/part-00000.snappy.parquet" 100000 7
echo
echo "== floe parquet schema"
"$floe" parquet schema "$dir/part-00000.snappy.parquet"
echo
echo "== floe parquet convert (snappy -> zstd, floe's reader and writer)"
"$floe" parquet convert "$dir/part-00000.snappy.parquet" "$dir/converted.zstd.parquet" --codec zstd
ls -l "$dir/part-00000.snappy.parquet" "$dir/converted.zstd.parquet"
echo
echo "== floe parquet cat --limit 3"
"$floe" parquet cat "$dir/converted.zstd.parquet" --limit 3 --columns id,gwcbi___operation,gwcbi___seqval_hex,amount,updatetime,status
echo
echo "== DuckDB reading floe's file"
node -e "
const { DuckDBInstance } = require('./tests/node_modules/@duckdb/node-api');
(async () => {
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const r = await c.runAndReadAll(\"SELECT count(*) AS rows, count(DISTINCT id) AS ids, sum(amount) AS amount FROM read_parquet('$dir/converted.zstd.parquet')\");
  console.log(r.getRowObjectsJson());
})();"
echo
echo "Files are in $dir"
