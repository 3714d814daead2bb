#!/usr/bin/env bash
# Query cost before and after compaction: a demo CDA export of FILES small
# Parquet files is ingested as many small batches (FILES_PER_BATCH source
# files each, one commit per batch), then DuckDB scans the table's live data
# and delete files (bench/maintenance/query_cost.mjs) before and after
# `floe table compact`; file counts, bytes, row groups, estimated GETs and
# scan time are printed as a Markdown table.
#   bench/maintenance/run.sh [FILES] [FILES_PER_BATCH]   (defaults: 2000 files, 10 per batch)
# Env: FLOE_BIN (default build/floe), FLOE_BENCH_DIR (default /tmp).
set -euo pipefail
cd "$(dirname "$0")/../.."
files="${1:-2000}"; per_batch="${2:-10}"
floe="$(realpath "${FLOE_BIN:-build/floe}")"
dir="${FLOE_BENCH_DIR:-/tmp}/floe-bench-maintenance-$files-$per_batch"
rm -rf "$dir"; mkdir -p "$dir"
folders=$(( (files + 9) / 10 ))
"$floe" demo generate "$dir/export" --seed 7 --rows $(( files * 20 )) --tables 1 --folders "$folders" \
  --files-per-folder 10 --no-schema-change --no-empty-folder --no-uncommitted-folder >/dev/null
cat >"$dir/pipeline.toml" <<TOML
name = "bench"
[source]
format = "cda"
uri = "$dir/export"
[catalog]
type = "sql"
uri = "sqlite://$dir/catalog.db"
warehouse = "$dir/warehouse"
[target]
namespace = "cda"
[trigger]
max_files_per_batch = $per_batch
[maintenance]
enabled = false
[state]
dir = "$dir/state"
TOML
start=$(date +%s)
"$floe" run "$dir/pipeline.toml" --once >"$dir/run.log"
ingest_s=$(( $(date +%s) - start ))
catalog=(--catalog "sqlite://$dir/catalog.db" --warehouse "$dir/warehouse")
"$floe" table files cda.cc_claim "${catalog[@]}" >"$dir/before.tsv"
before="$(node bench/maintenance/query_cost.mjs "$dir/before.tsv")"
start=$(date +%s)
"$floe" table compact cda.cc_claim "${catalog[@]}" >"$dir/compact.log"
compact_s=$(( $(date +%s) - start ))
"$floe" table files cda.cc_claim "${catalog[@]}" >"$dir/after.tsv"
after="$(node bench/maintenance/query_cost.mjs "$dir/after.tsv")"
node -e '
const [b, a] = [JSON.parse(process.argv[1]), JSON.parse(process.argv[2])];
console.log(`source files ${process.argv[3]}, ${process.argv[4]} per batch; ingest ${process.argv[5]} s, compaction ${process.argv[6]} s`);
console.log("| | data files | delete files | bytes | row groups | est. GETs | rows scanned | DuckDB scan |");
console.log("|---|---|---|---|---|---|---|---|");
for (const [name, r] of [["before compaction", b], ["after compaction", a]]) {
  console.log(`| ${name} | ${r.data_files} | ${r.delete_files} | ${(r.bytes / 1e6).toFixed(2)} MB | ${r.row_groups} | ${r.estimated_gets} | ${r.rows_scanned} | ${(r.seconds * 1000).toFixed(0)} ms |`);
}
' "$before" "$after" "$files" "$per_batch" "$ingest_s" "$compact_s"
