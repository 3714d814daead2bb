#!/usr/bin/env bash
# README's first command ends here: a short tour of what floe does.
#   scripts/demo.sh [DIR]   (default: ./floe-demo)
# `floe demo DIR` generates a realistic Guidewire CDA export (three tables,
# out-of-order changes, deletes, a schema change, an empty and an
# uncommitted folder), writes DIR/pipeline.toml and ingests the export into
# Iceberg tables in a SQLite catalog. The tour then reads the tables back
# with floe, counts the raw data files with DuckDB (an independent reader),
# appends a round of changes and ingests them.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$(realpath -m "${1:-floe-demo}")"
floe="$(realpath -m "${FLOE_BIN:-build/floe}")"
catalog=(--catalog "sqlite://$dir/catalog.db" --warehouse "$dir/warehouse")

"$floe" demo "$dir"

echo
echo "== floe table scan cda.cc_claim --limit 5 --columns id,gwcbi___seqval_hex,beanversion,status,totalincurred,updatetime"
"$floe" table scan cda.cc_claim "${catalog[@]}" --limit 5 \
  --columns id,gwcbi___seqval_hex,beanversion,status,totalincurred,updatetime
echo
echo "== current rows (floe table scan, deletes applied)"
for table in cc_claim cc_exposure cc_contact; do
  printf '%-12s %s\n' "$table" "$("$floe" table scan "cda.$table" "${catalog[@]}" --columns id | wc -l)"
done
echo
echo "== DuckDB over the raw data files (ignores deletes: superseded rows still count)"
node -e "
const { DuckDBInstance } = require('./tests/node_modules/@duckdb/node-api');
(async () => {
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const r = await c.runAndReadAll(\"SELECT count(*) AS data_file_rows, count(DISTINCT id) AS ids, \" +
    \"sum(totalincurred) AS totalincurred FROM read_parquet('$dir/warehouse/cda/cc_claim/data/**/*.parquet', union_by_name = true)\");
  console.log(r.getRowObjectsJson());
})();"
echo
echo "== a new round of changes arrives: floe demo generate --append-round, then floe run --once"
round=$(( $(ls "$dir/export/cc_claim"/*/ | grep -c '^[0-9]') ))  # any number above the previous rounds
"$floe" demo generate "$dir/export" --append-round "$round" --append-folders 3
"$floe" run "$dir/pipeline.toml" --once
echo
echo "Everything is in $dir (export/, pipeline.toml, catalog.db, warehouse/, state/)"
