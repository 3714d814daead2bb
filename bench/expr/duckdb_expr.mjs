// DuckDB beside bench/micro/expr_bench.cc: the same five expectation
// predicates and three derived columns over a CDA-shaped table of the same
// shape and distributions (built in memory with a fixed seed), one thread.
// Predicates are timed as count(*) FILTER (WHERE p), derived columns as
// max(expr) (DuckDB computes every value, floe's Evaluate also materialises
// them); "all eight" is one query with all of them. Prints rows/s, best of N.
//   node bench/expr/duckdb_expr.mjs [rows=1000000] [repeats=5]
import { createRequire } from 'node:module';
// The pinned test tools live in tests/node_modules (tests/package.json).
const require = createRequire(new URL('../../tests/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const rows = Number(process.argv[2] ?? 1_000_000);
const repeats = Number(process.argv[3] ?? 5);

const EXPECTATIONS = [
  'id IS NOT NULL',
  'amount > 0',
  "status IN ('open', 'closed', 'pending')",
  "publicid LIKE 'pc:%'",
  'updatetime >= createtime AND retired = 0',
];
const DERIVED = [
  "CASE WHEN currency = 'EUR' THEN amount * 1.09 WHEN currency = 'GBP' THEN amount * 1.27 ELSE amount END",
  'CAST(createtime AS DATE)',  // floe: to_date(createtime)
  'upper(trim(status))',
];

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await db.connect();
await conn.run("SET TimeZone = 'UTC'");
await conn.run('SELECT setseed(0.7)');
await conn.run(`CREATE TABLE t AS SELECT
    printf('%016x', (random() * 9e15)::BIGINT) AS gwcbi___seqval_hex,
    CASE WHEN r < 0.1 THEN 1 WHEN r < 0.4 THEN 2 ELSE 4 END::INTEGER AS gwcbi___operation,
    CASE WHEN random() < 0.0103 THEN NULL ELSE i END::BIGINT AS id,
    'pc:' || (i * 7) AS publicid,
    CASE WHEN random() < 0.077 THEN NULL ELSE ((random() * 2000000)::BIGINT - 100000) / 100 END::DECIMAL(18,2) AS amount,
    (['EUR', 'USD', 'GBP', 'CHF'])[1 + (random() * 4)::INT % 4] AS currency,
    CASE WHEN random() < 0.059 THEN NULL ELSE (['open', 'closed', 'pending', 'draft', '  open '])[1 + (random() * 5)::INT % 5] END AS status,
    make_timestamptz(1700000000000000 + (random() * 1e14)::BIGINT) AS createtime,
    CASE WHEN random() < 0.091 THEN NULL ELSE make_timestamptz(1700000000000000 + (random() * 1e14)::BIGINT) END AS updatetime,
    CASE WHEN random() < 0.02 THEN 1 ELSE 0 END::BIGINT AS retired,
    repeat(chr(97 + (random() * 25)::INT), 40 + (random() * 200)::INT) AS description
  FROM (SELECT range AS i, random() AS r FROM range(${rows}))`);

async function best(sql) {
  let bestMs = Infinity;
  for (let k = 0; k < repeats; k++) {
    const start = process.hrtime.bigint();
    await conn.runAndReadAll(sql);
    bestMs = Math.min(bestMs, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return bestMs;
}

const report = (name, ms) => console.log(`${name.padEnd(110)} ${ms.toFixed(2).padStart(9)} ms ${(rows / ms / 1000).toFixed(1).padStart(8)} M rows/s`);
for (const p of EXPECTATIONS) report(p, await best(`SELECT count(*) FILTER (WHERE ${p}) FROM t`));
for (const d of DERIVED) report(d, await best(`SELECT max(${d}) FROM t`));
const all = [...EXPECTATIONS.map((p) => `count(*) FILTER (WHERE ${p})`), ...DERIVED.map((d) => `max(${d})`)];
report('all eight', await best(`SELECT ${all.join(', ')} FROM t`));
report('(baseline: count(*))', await best('SELECT count(*) FROM t'));
