// DuckDB's single-threaded read_json / read_csv times for one file, the peer
// figures beside floe's in docs/benchmarks.md.
//   node duckdb_text_throughput.mjs FORMAT FILE PARQUET REPEATS
// FORMAT: jsonl or csv. Prints one JSON object: best-of-REPEATS seconds with
// the columns given (no sniffing or type detection: `known_s`) and with
// DuckDB's own detection (`auto_s`; read_json over the whole file, since its
// default 20480-row sample rejects this file's later timestamps), each
// materialising every column of every row through an aggregate.
import { createRequire } from 'node:module';
const require = createRequire(new URL('../../tests/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const [format, file, parquet, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 3);
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await db.connect();
const desc = (await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${parquet}')`)).getRows();
const columns = '{' + desc.map(([name, type]) => `'${name}': '${type}'`).join(', ') + '}';
const agg = desc.map(([name]) => `min("${name}")`).join(', ');
const known = format === 'csv'
  ? `read_csv('${file}', auto_detect = false, header = true, columns = ${columns})`
  : `read_json('${file}', format = 'newline_delimited', columns = ${columns})`;
const auto = format === 'csv' ? `read_csv('${file}')` : `read_json('${file}', sample_size = -1)`;

async function best(sql) {
  let b = Infinity;
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await c.run(sql);
    b = Math.min(b, (performance.now() - t0) / 1000);
  }
  return b;
}

const knownS = await best(`SELECT ${agg} FROM ${known}`);
const autoS = await best(`SELECT ${agg} FROM ${auto}`);
console.log(JSON.stringify({ reader: 'duckdb', threads: 1, format, known_s: knownS, auto_s: autoS }));
