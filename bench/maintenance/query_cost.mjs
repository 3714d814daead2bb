// Query cost of a table's live files as a query engine without Iceberg
// support would pay it: DuckDB scans every live data file (and every delete
// file, which an Iceberg reader must read as well) listed by `floe table
// files` (a TSV file). Prints JSON: file counts, bytes,
// row groups, an estimate of object-store GETs (one footer read plus one read
// per row group for each file) and the best wall time of REPEATS fresh DuckDB
// instances (no metadata cache carried over).
//   node bench/maintenance/query_cost.mjs FILES_TSV [REPEATS]
import fs from 'node:fs';
import { createRequire } from 'node:module';

// The npm tools are installed in tests/.
const require = createRequire(new URL('../../tests/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const [tsv, repeatsText = '3'] = process.argv.slice(2);
const repeats = Number(repeatsText);
const rows = fs.readFileSync(tsv, 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
const data = rows.filter((r) => r[1] === 'data').map((r) => r[0].replace(/^file:\/\//, ''));
const deletes = rows.filter((r) => r[1] !== 'data').map((r) => r[0].replace(/^file:\/\//, ''));
const bytes = rows.reduce((sum, r) => sum + Number(r[3]), 0);
const list = (files) => `[${files.map((f) => `'${f.replaceAll("'", "''")}'`).join(', ')}]`;

async function run(sql) {
  const connection = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
  const result = await connection.runAndReadAll(sql);
  return result.getRowObjectsJson();
}

const all = [...data, ...deletes];
const [meta] = await run(`SELECT count(DISTINCT row_group_id || file_name) AS row_groups FROM parquet_metadata(${list(all)})`);
let best = Infinity;
let scanned = 0;
for (let i = 0; i < repeats; i++) {
  const start = process.hrtime.bigint();
  const [r] = await run(`SELECT count(*) AS n, count(DISTINCT id) AS ids FROM read_parquet(${list(data)})`);
  if (deletes.length > 0) await run(`SELECT count(*) AS n FROM read_parquet(${list(deletes)})`);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  best = Math.min(best, seconds);
  scanned = Number(r.n);
}
console.log(JSON.stringify({
  data_files: data.length,
  delete_files: deletes.length,
  bytes,
  row_groups: Number(meta.row_groups),
  estimated_gets: all.length + Number(meta.row_groups),
  rows_scanned: scanned,
  seconds: best,
}));
