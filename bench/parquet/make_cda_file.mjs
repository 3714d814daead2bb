// Writes a CDA-shaped Parquet file (the shape Guidewire CDA exports have:
// 20 columns of ints, decimals, timestamps, short and long strings, 5-20%
// nulls) with DuckDB, for the Parquet throughput benchmark.
//   node make_cda_file.mjs OUT.parquet ROWS [SEED]
import { createRequire } from 'node:module';
// The pinned test tools live in tests/node_modules (tests/package.json).
const require = createRequire(new URL('../../tests/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const [out, rowsArg, seedArg] = process.argv.slice(2);
if (!out || !rowsArg) {
  console.error('usage: make_cda_file.mjs OUT.parquet ROWS [SEED]');
  process.exit(2);
}
const rows = Number(rowsArg);
const seed = Number(seedArg ?? 1) / 1000;

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`SELECT setseed(${seed})`);
// n(p, expr): expr, or NULL with probability p.
const n = (p, e) => `CASE WHEN random() < ${p} THEN NULL ELSE ${e} END`;
await c.run(`COPY (
  SELECT
    i::BIGINT AS id,
    'pc:' || (i * 7919 % 1000003)::VARCHAR AS publicid,
    TIMESTAMP '2020-01-01' + to_microseconds((random() * 1e14)::BIGINT) AS createtime,
    ${n(0.05, "TIMESTAMP '2023-01-01' + to_microseconds((random() * 1e13)::BIGINT)")} AS updatetime,
    (random() < 0.02)::INT::BIGINT AS retired,
    (random() * 20)::INT AS beanversion,
    [0, 2, 4, 4, 4, 1][1 + floor(random() * 6)::INT] AS gwcbi___operation,
    printf('%x', 1000000000 + i * 13) AS gwcbi___seqval_hex,
    (1000000000 + i * 13)::BIGINT AS gwcbi___seqval,
    (random() * 1e12)::BIGINT AS gwcbi___lsn,
    1664585730000 + (i // 100)::BIGINT AS gwcbi___connector_ts_ms,
    ${n(0.10, '(random() * 1e9)::DECIMAL(18,2)')} AS amount,
    ${n(0.15, '(random() * 100)::DECIMAL(9,4)')} AS rate,
    ${n(0.20, "repeat('lorem ipsum dolor sit amet ', 2 + (random() * 12)::INT)")} AS description,
    ['Draft', 'Quoted', 'Bound', 'Issued', 'Cancelled'][1 + floor(random() * 5)::INT] AS status,
    ${n(0.05, "'PN-' || lpad(((random() * 1e9)::BIGINT)::VARCHAR, 10, '0')")} AS policynumber,
    ${n(0.10, "DATE '2000-01-01' + (random() * 9000)::INT")} AS effectivedate,
    ${n(0.10, 'random() * 10000')} AS premium,
    ${n(0.05, 'random() < 0.5')} AS flag,
    ${n(0.20, '(random() * 1000)::INT')} AS counter
  FROM range(${rows}) t(i)
) TO '${out}' (FORMAT parquet, COMPRESSION snappy)`);
console.log(`wrote ${out}: ${rows} rows`);
