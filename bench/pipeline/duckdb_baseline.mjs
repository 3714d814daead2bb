// DuckDB's side of the full-load benchmark (bench/pipeline/run.sh): on the
// Parquet part files of every table's committed folders of a CDA export (the
// files floe ingests), either
//   copy:  a plain copy of all change rows into one zstd Parquet file per table,
//   merge: the pipeline's merge in SQL (newest change per id by the seqval hex
//          left-padded to 32 digits, operation 3 dropped, ids whose newest
//          change is a delete removed) into one zstd Parquet file per table.
//   node duckdb_baseline.mjs EXPORT_DIR OUT_DIR copy|merge THREADS
// Prints one JSON object: wall seconds, CPU seconds (user+sys of this process,
// which holds DuckDB's worker threads), peak RSS of the process in bytes (node
// itself included, ~50 MB), rows read and rows written.
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
// The pinned test tools live in tests/node_modules (tests/package.json).
const require = createRequire(new URL('../../tests/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');
const { committedFiles, exportTables } = await import('../../tests/tools/pipeline_oracle.mjs');

const [exportDir, outDir, mode, threadsArg] = process.argv.slice(2);
if (!exportDir || !outDir || !['copy', 'merge'].includes(mode) || !threadsArg) {
  console.error('usage: node duckdb_baseline.mjs EXPORT_DIR OUT_DIR copy|merge THREADS');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const sql = (text) => `'${text.replace(/'/g, "''")}'`;

const db = await DuckDBInstance.create(':memory:', { threads: String(threadsArg) });
const c = await db.connect();
const jobs = exportTables(exportDir).map((table) => ({ table, files: committedFiles(exportDir, table) }));

const cpu0 = process.cpuUsage();
const t0 = performance.now();
let rowsIn = 0;
let rowsOut = 0;
const outputs = [];
for (const { table, files } of jobs) {
  if (files.length === 0) continue;
  const source = `read_parquet([${files.map(sql).join(', ')}], union_by_name = true)`;
  const out = join(outDir, `${table}-${mode}.parquet`);
  const query =
    mode === 'copy'
      ? `SELECT * FROM ${source}`
      : `WITH changes AS (SELECT * FROM ${source} WHERE gwcbi___operation IS DISTINCT FROM 3),
         ranked AS (SELECT *, row_number() OVER (
             PARTITION BY id ORDER BY lpad(lower(gwcbi___seqval_hex), 32, '0') DESC) AS floe_rank
           FROM changes)
         SELECT * EXCLUDE (floe_rank) FROM ranked WHERE floe_rank = 1 AND gwcbi___operation <> 1`;
  await c.run(`COPY (${query}) TO ${sql(out)} (FORMAT parquet, COMPRESSION zstd)`);
  outputs.push({ files, out });
}
const wall = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
// Counted outside the timed region: only the copy or merge is measured.
const count = async (source) => Number((await c.runAndReadAll(`SELECT count(*) FROM ${source}`)).getRows()[0][0]);
for (const { files, out } of outputs) {
  rowsIn += await count(`read_parquet([${files.map(sql).join(', ')}], union_by_name = true)`);
  rowsOut += await count(`read_parquet(${sql(out)})`);
}
console.log(
  JSON.stringify({
    engine: 'duckdb',
    mode,
    threads: Number(threadsArg),
    wall_s: wall,
    cpu_s: (cpu.user + cpu.system) / 1e6,
    peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
    rows_in: rowsIn,
    rows_out: rowsOut,
  }),
);
