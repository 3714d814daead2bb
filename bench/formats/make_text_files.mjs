// Exports a Parquet file (bench/parquet/make_cda_file.mjs's CDA-shaped table)
// as JSON lines and CSV with DuckDB's COPY, and prints the table's schema in
// floe's schema_hints syntax (the "known schema" of the sniffing-off runs).
//   node make_text_files.mjs IN.parquet OUT.jsonl OUT.csv
import { createRequire } from 'node:module';
// The pinned test tools live in tests/node_modules (tests/package.json).
const require = createRequire(new URL('../../tests/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');
import fs from 'node:fs';

const [input, jsonl, csv] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`CREATE VIEW t AS SELECT * FROM read_parquet('${input}')`);
if (!fs.existsSync(jsonl)) await c.run(`COPY t TO '${jsonl}' (FORMAT json)`);
if (!fs.existsSync(csv)) await c.run(`COPY t TO '${csv}' (FORMAT csv, HEADER)`);
const names = { BIGINT: 'bigint', INTEGER: 'int', VARCHAR: 'string', TIMESTAMP: 'timestamp', DATE: 'date',
  DOUBLE: 'double', BOOLEAN: 'boolean' };
const rows = (await c.runAndReadAll('DESCRIBE t')).getRows();
console.log(rows.map(([name, type]) => `${name} ${names[type] ?? type.toLowerCase()}`).join(', '));
