// DuckDB's single-threaded Parquet decode and encode times for one file, the
// peer figures beside floe's in docs/benchmarks.md.
//   node duckdb_throughput.mjs FILE.parquet [REPEATS]
// Prints one JSON object: best-of-REPEATS seconds for decode (every column of
// every row materialised by an aggregate over all columns) and encode (COPY of
// an in-memory table to Parquet, snappy).
import { createRequire } from 'node:module';
// The pinned test tools live in tests/node_modules (tests/package.json).
const require = createRequire(new URL('../../tests/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [file, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 3);
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await db.connect();
const cols = (await c.runAndReadAll(`SELECT name FROM parquet_schema('${file}') WHERE num_children IS NULL`))
  .getRows().map((r) => r[0]);
const agg = cols.map((name) => `min("${name}")`).join(', ');

async function best(fn) {
  let b = Infinity;
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await fn();
    b = Math.min(b, (performance.now() - t0) / 1000);
  }
  return b;
}

const decode = await best(() => c.run(`SELECT ${agg} FROM read_parquet('${file}')`));
await c.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${file}')`);
const dir = mkdtempSync(join(tmpdir(), 'floe-bench-'));
const encode = await best(() => c.run(`COPY t TO '${join(dir, 'out.parquet')}' (FORMAT parquet, COMPRESSION snappy)`));
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ reader: 'duckdb', threads: 1, decode_s: decode, encode_s: encode }));
