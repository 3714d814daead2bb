// Transforms and expectations through the pipeline (issue 18), against DuckDB
// evaluating the SAME SQL text over the same source files:
// - DuckDB writes Parquet order files (nulls in every column, decimals,
//   timestamps written from six time zones); floe ingests them (append) with a
//   filter, derived columns (CASE over decimals, date_trunc/year/hour of a
//   timestamptz, concat/upper/CAST), drop, rename and three expectations
//   (drop, quarantine, warn). The table, read by DuckDB straight from its live
//   data files (manifests read with avsc), equals DuckDB's SELECT of the same
//   expressions over the source files; <table>__quarantine, read the same way,
//   holds exactly the rows failing the quarantine expectation with every
//   expectation they failed, their file and row; the counts of the snapshot
//   summary and `floe files --expectations` equal DuckDB's counts.
// - A derived column that overflows (DuckDB raises the same error on the
//   same SQL) quarantines its file, naming the expression and the row.
// - A `fail` expectation stops the batch: the table keeps its snapshots and
//   rows, the message names the expectation, the file and the row.
// - `floe validate` leaves the warehouse, the catalog and the ledger
//   byte-for-byte unchanged (every file hashed before and after).
//
// Env: FLOE_BIN (required); FLOE_KEEP_TEMP=1 keeps the work directory.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { openDuckDB, sqlString } from '../tools/readers.mjs';
import { writeZoneConfig } from '../tools/landing_zones.mjs';
import { FLOE, liveDataFiles, runFloe, runFloeOk, skipWithoutFloe, snapshotIds } from '../tools/pipeline_oracle.mjs';

let db;
let work;
before(async () => {
  if (FLOE) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-expectations-'));
});
after(() => {
  db?.close();
  if (work && process.env.FLOE_KEEP_TEMP !== '1') fs.rmSync(work, { recursive: true, force: true });
  else if (work) console.log(`kept ${work}`);
});

const catalogOf = (dir) => ['--catalog', `sqlite://${path.join(dir, 'catalog.db')}`];

// Orders [lo, hi): every column null somewhere, revenue negative sometimes,
// qty outside 1..100 sometimes, timestamps written with six UTC offsets.
const ORDERS = (lo, hi) => `SELECT i::BIGINT AS id,
  CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN 'EUR' WHEN 2 THEN 'GBP' WHEN 3 THEN 'JPY' ELSE 'USD' END AS cur,
  CASE WHEN i % 11 = 0 THEN NULL
       ELSE CAST(CAST((i * 7919) % 20000 - 2000 AS VARCHAR) || '.' || lpad(CAST(i % 100 AS VARCHAR), 2, '0')
                 AS DECIMAL(18,2)) END AS revenue,
  CASE WHEN i % 13 = 0 THEN NULL ELSE ((i * 31) % 120)::INTEGER END AS qty,
  CASE WHEN i % 17 = 0 THEN NULL
       ELSE (strftime(TIMESTAMP '2024-03-09 20:00:00' + to_seconds(i * 3607), '%Y-%m-%d %H:%M:%S') ||
             (['+00:00', '-08:00', '+05:30', '+14:00', '-12:00', '+01:00'])[i % 6 + 1])::TIMESTAMPTZ END AS ts,
  CASE WHEN i % 5 = 0 THEN NULL ELSE 'note ' || i END AS note
  FROM range(${lo}, ${hi}) t(i)`;

const FILTER = 'id % 10 <> 3 AND cur IS NOT NULL';
const DERIVED = {
  revenue_usd: "CASE WHEN cur = 'EUR' THEN revenue * 1.09 WHEN cur = 'GBP' THEN revenue * 1.27 ELSE revenue END",
  order_day: "date_trunc('day', ts)",
  yr: 'year(ts)',
  hr: 'hour(ts)',
  label: "concat(upper(cur), '-', CAST(qty AS varchar))",
};
const EXPECTATIONS = [
  { name: 'positive', expr: 'revenue > 0', action: 'drop' },
  { name: 'qty_range', expr: 'qty BETWEEN 1 AND 100', action: 'quarantine' },
  { name: 'known_currency', expr: "cur IN ('EUR', 'USD', 'GBP')", action: 'warn' },
];
const toml = (text) => JSON.stringify(text);

function transformConfig() {
  return `[transform]
filter = ${toml(FILTER)}
drop = ["note"]
[transform.columns]
${Object.entries(DERIVED).map(([name, expr]) => `${name} = ${toml(expr)}`).join('\n')}
[transform.rename]
qty = "quantity"
${EXPECTATIONS.map((e) => `[[expectations]]\nname = "${e.name}"\nexpr = ${toml(e.expr)}\naction = "${e.action}"`).join('\n')}`;
}

function sourceConfig(dir, src, extra = '', file = 'pipeline.toml') {
  return writeZoneConfig(dir, `[source]
format = "parquet"
uri = "${src}"
table_from_path = "{table}/*.parquet"
settle = 0
${extra}`, { name: 'expect', file });
}

async function writeOrders(file, lo, hi) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await db.connection.run(`COPY (${ORDERS(lo, hi)}) TO ${sqlString(file)} (FORMAT parquet)`);
}

// The source files as DuckDB reads them, with each row's file and row number.
const sourceOf = (files) =>
  `(SELECT *, filename AS src_file, file_row_number AS src_row
    FROM read_parquet([${files.map(sqlString).join(', ')}], filename = true, file_row_number = true))`;

// Rows of a query as sorted JSON texts (every value cast to VARCHAR by DuckDB).
async function rowsAsText(sql) {
  const rows = await db.all(`SELECT * FROM (${sql})`);
  return rows.map((row) => JSON.stringify(Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, v === null ? null : String(v)]),
  ))).sort();
}

// Every file under `dir` with its SHA-256.
function hashTree(dir) {
  const out = {};
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

test('the table and its quarantine equal DuckDB evaluating the same expressions', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = path.join(work, 'main');
  const src = path.join(dir, 'src');
  const files = [path.join(src, 'orders', 'part-0.parquet'), path.join(src, 'orders', 'part-1.parquet'),
    path.join(src, 'orders', 'part-2.parquet')];
  await writeOrders(files[0], 0, 1500);
  await writeOrders(files[1], 1500, 3000);
  await writeOrders(files[2], 3000, 4000);
  const config = sourceConfig(dir, src, transformConfig());
  const run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, `${run.stderr}\n${run.stdout}`);

  // DuckDB's verdict on every source row, from the same SQL text.
  await db.connection.run(`CREATE OR REPLACE TABLE judged AS SELECT *, (${FILTER}) IS TRUE AS kept,
    ${EXPECTATIONS.map((e) => `(${e.expr}) IS TRUE AS pass_${e.name}`).join(', ')} FROM ${sourceOf(files)}`);
  const derived = Object.entries(DERIVED).map(([name, expr]) => `CAST(${expr} AS VARCHAR) AS ${name}`).join(', ');
  const expected = await rowsAsText(`SELECT CAST(id AS VARCHAR) AS id, cur, CAST(revenue AS VARCHAR) AS revenue,
      CAST(qty AS VARCHAR) AS quantity, CAST(ts AS VARCHAR) AS ts, ${derived}
    FROM judged WHERE kept AND pass_positive AND pass_qty_range`);
  const tableFiles = await liveDataFiles(dir, 'default.orders');
  const actual = await rowsAsText(`SELECT CAST(id AS VARCHAR) AS id, cur, CAST(revenue AS VARCHAR) AS revenue,
      CAST(quantity AS VARCHAR) AS quantity, CAST(ts AS VARCHAR) AS ts,
      ${Object.keys(DERIVED).map((n) => `CAST(${n} AS VARCHAR) AS ${n}`).join(', ')}
    FROM read_parquet([${tableFiles.map(sqlString).join(', ')}])`);
  assert.ok(expected.length > 1000, `only ${expected.length} rows expected`);
  assert.equal(actual.length, expected.length);
  assert.deepEqual(actual, expected);
  const columns = (await db.all(`DESCRIBE SELECT * FROM read_parquet(${sqlString(tableFiles[0])})`)).map((c) => c.column_name);
  assert.ok(!columns.includes('note') && !columns.includes('qty'), `dropped/renamed columns remain: ${columns}`);

  // The quarantine table: the rows failing qty_range (the strongest action), as they arrived.
  const failedList = `list_filter([${EXPECTATIONS.map((e) => `CASE WHEN NOT pass_${e.name} THEN '${e.name}' END`).join(', ')}], x -> x IS NOT NULL)`;
  const expectedQuarantine = await rowsAsText(`SELECT CAST(${failedList} AS VARCHAR) AS failed, src_file AS file,
      CAST(src_row AS VARCHAR) AS row, CAST(id AS VARCHAR) AS id, cur, CAST(revenue AS VARCHAR) AS revenue,
      CAST(qty AS VARCHAR) AS qty, CAST(ts AS VARCHAR) AS ts, note
    FROM judged WHERE kept AND NOT pass_qty_range`);
  const quarantineFiles = await liveDataFiles(dir, 'default.orders__quarantine');
  const quarantine = await rowsAsText(`SELECT CAST(_floe_failed_expectations AS VARCHAR) AS failed,
      _floe_source_file AS file, CAST(_floe_source_row AS VARCHAR) AS row, CAST(id AS VARCHAR) AS id, cur,
      CAST(revenue AS VARCHAR) AS revenue, CAST(qty AS VARCHAR) AS qty, CAST(ts AS VARCHAR) AS ts, note
    FROM read_parquet([${quarantineFiles.map(sqlString).join(', ')}])`);
  assert.ok(expectedQuarantine.length > 50);
  assert.deepEqual(quarantine, expectedQuarantine);

  // Counts: the ledger (`floe files --expectations`) and the snapshot summaries.
  const [counts] = await db.all(`SELECT count(*) FILTER (WHERE NOT kept) AS filtered,
      count(*) FILTER (WHERE kept AND NOT pass_positive AND pass_qty_range) AS dropped,
      count(*) FILTER (WHERE kept AND NOT pass_qty_range) AS quarantined, count(*) FILTER (WHERE kept) AS checked,
      ${EXPECTATIONS.map((e) => `count(*) FILTER (WHERE kept AND NOT pass_${e.name}) AS failed_${e.name}`).join(', ')}
    FROM judged`);
  const ledger = runFloeOk(['files', config, '--expectations', '--format', 'jsonl']).stdout.trim().split('\n')
    .map((line) => JSON.parse(line));
  for (const e of EXPECTATIONS) {
    const lines = ledger.filter((l) => l.expectation === e.name);
    assert.ok(lines.length >= 1, `no ledger counts for ${e.name}`);
    const sum = (k) => lines.reduce((s, l) => s + l[k], 0);
    assert.equal(sum('checked'), Number(counts.checked), e.name);
    assert.equal(sum('failed'), Number(counts[`failed_${e.name}`]), e.name);
    assert.equal(sum('passed'), Number(counts.checked) - Number(counts[`failed_${e.name}`]), e.name);
    assert.equal(lines[0].action, e.action);
  }
  const metadata = JSON.parse(fs.readFileSync(
    runFloeOk(['table', 'describe', 'default.orders', ...catalogOf(dir)]).stdout.match(/^metadata: (.+)$/m)[1]
      .replace(/^file:\/\//, ''), 'utf8'));
  const summaries = metadata.snapshots.map((s) => s.summary).filter((s) => s['floe.batch-id']);
  const total = (key) => summaries.reduce((s, x) => s + Number(x[key] ?? 0), 0);
  assert.equal(total('floe.rows-filtered'), Number(counts.filtered));
  assert.equal(total('floe.rows-dropped'), Number(counts.dropped));
  assert.equal(total('floe.rows-quarantined'), Number(counts.quarantined));
  assert.equal(total('floe.expect.positive.failed'), Number(counts.failed_positive));
  assert.equal(total('floe.expect.known_currency.passed'), Number(counts.checked) - Number(counts.failed_known_currency));

  // floe validate on a new file: nothing under the warehouse, catalog or state changes.
  await writeOrders(path.join(src, 'orders', 'part-3.parquet'), 4000, 4200);
  // Every file of the warehouse, the state dir (ledger) and the catalog's directory.
  const everything = () => ({ warehouse: hashTree(path.join(dir, 'warehouse')), state: hashTree(path.join(dir, 'state')),
    catalog: Object.fromEntries(Object.entries(hashTree(dir)).filter(([f]) => f.startsWith('catalog.db'))) });
  const before = everything();
  const sample = runFloe(['validate', config, '--rows', '5']);
  assert.equal(sample.status, 0, sample.stdout + sample.stderr);
  const sampleRows = sample.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  assert.equal(sampleRows.length, 5);
  assert.ok(sampleRows.every((r) => Number(r.id) >= 4000 && 'revenue_usd' in r && !('note' in r)), sample.stdout);
  const errors = runFloe(['validate', config, '--errors']);
  assert.equal(errors.status, 0, errors.stdout + errors.stderr);
  assert.match(errors.stdout, /part-3\.parquet\n\s+row \d+: failed "[a-z_]+"/);
  assert.match(errors.stdout, /expectation qty_range \(quarantine\): \d+ checked/);
  assert.deepEqual(everything(), before);
  assert.ok(Object.keys(before.state).some((f) => f.endsWith('ledger.db')));
});

test('an overflow quarantines its file as DuckDB raises it; a failing fail expectation changes nothing', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = path.join(work, 'fail');
  const src = path.join(dir, 'src');
  const first = path.join(src, 'orders', 'part-0.parquet');
  await writeOrders(first, 0, 300);
  // A second table whose qty holds the int maximum at row 7.
  const spill = path.join(src, 'spill', 'part-0.parquet');
  fs.mkdirSync(path.dirname(spill), { recursive: true });
  await db.connection.run(`COPY (SELECT i::BIGINT AS id, CASE WHEN i = 7 THEN 2147483647 ELSE i END::INTEGER AS qty
    FROM range(0, 20) t(i)) TO ${sqlString(spill)} (FORMAT parquet)`);
  await assert.rejects(db.all(`SELECT qty + 1 FROM read_parquet(${sqlString(spill)})`), /[Oo]verflow/);
  const config = sourceConfig(dir, src, `[tables.spill.transform.columns]
next_qty = "qty + 1"
[[tables.orders.expectations]]
name = "no_jpy"
expr = "cur IS NULL OR cur <> 'JPY'"
action = "fail"
[tables.orders.transform]
filter = "id % 100 < 50"`);
  const run = runFloe(['run', config, '--once']);
  // orders: id 3 (JPY) fails: the batch stops, nothing of it commits.
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stdout + run.stderr, /expectation "no_jpy" \(action "fail"\) failed at row 3 of .*orders\/part-0\.parquet/);
  assert.match(run.stdout + run.stderr, /quarantined .*spill\/part-0\.parquet: .*"qty \+ 1".*row 7/);
  const listed = runFloeOk(['files', config, '--format', 'jsonl']).stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(listed.find((f) => f.uri === spill).state, 'quarantined');
  assert.equal(listed.find((f) => f.uri === first).state, 'discovered');
  assert.equal(runFloe(['table', 'describe', 'default.orders', ...catalogOf(dir)]).status, 1);

  // Once the table exists, a failing batch leaves it as it was.
  const passing = sourceConfig(dir, src, `[tables.orders.transform]
filter = "id % 100 < 50 AND (cur IS NULL OR cur <> 'JPY')"
[[tables.orders.expectations]]
name = "no_jpy"
expr = "cur IS NULL OR cur <> 'JPY'"
action = "fail"`, 'passing.toml');
  runFloeOk(['run', passing, '--once', '--quiet']);
  const snapshots = snapshotIds(dir, 'default.orders');
  const tableBefore = hashTree(path.join(dir, 'warehouse', 'default', 'orders'));
  await writeOrders(path.join(src, 'orders', 'part-1.parquet'), 300, 400);
  const failing = runFloe(['run', config, '--once']);
  assert.equal(failing.status, 1);
  // id 304 is the first JPY of part-1 the filter keeps: its row 4.
  assert.match(failing.stdout + failing.stderr, /"no_jpy" \(action "fail"\) failed at row 4 of .*part-1\.parquet/);
  assert.deepEqual(snapshotIds(dir, 'default.orders'), snapshots);
  assert.deepEqual(hashTree(path.join(dir, 'warehouse', 'default', 'orders')), tableBefore);
  // validate says the same, and exits 1.
  const validated = runFloe(['validate', config, '--table', 'orders']);
  assert.equal(validated.status, 1, validated.stdout);
  assert.match(validated.stdout, /part-1\.parquet\n(\s+row .*\n)*\s+row 4: failed "no_jpy" \(fail: the batch would stop\)/);
});
