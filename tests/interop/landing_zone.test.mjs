// Generic landing zones as users meet them (issue 15, and AWS DMS CDC files
// of issue 21 item 3), with every input written by DuckDB and by arrow-rs
// (parquet-wasm), never by floe:
// - a DMS-shaped zone (<schema>/<table>/LOAD*.parquet full loads without Op
//   or with Op = 'I', then dated CDC files with I/U/D and AR_H_CHANGE_SEQ
//   or the DMS timestamp column, out of order across files and runs) and a
//   Debezium-file-shaped zone (__op c/u/d/r, ordering by __source_ts_ms then
//   __lsn, a snapshot file without __op, Hive region=... folders as a key
//   and partition column) merge to what DuckDB computes from the files;
// - one test per item of issue 15: a new table's types voted by its files,
//   bad rows to <table>__bad_rows, a missing uri, a changed key or
//   partition_by, a second pipeline, settling files and timestamps, the
//   messages, `floe table` without --warehouse, `floe files --retry FILE`
//   and `--skip FILE`.
//
// Env: FLOE_BIN (required).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDuckDB, sqlString } from '../tools/readers.mjs';
import {
  catalogOf,
  compareByKey,
  debeziumZone,
  dmsZone,
  oracleLatest,
  rowsByKeyFromScanCsv,
  scanZoneTable,
  writeWithArrowRs,
  writeWithDuckDB,
  writeZoneConfig,
} from '../tools/landing_zones.mjs';
import { FLOE, ledgerFiles, runFloe, runFloeOk, skipWithoutFloe } from '../tools/pipeline_oracle.mjs';

let db;
let work;
before(async () => {
  if (FLOE) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-landing-'));
});
after(() => {
  db?.close();
  if (work && !process.env.FLOE_KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

const writeConfig = writeZoneConfig;
const scan = scanZoneTable;

function filesUnder(root, predicate = () => true) {
  const out = [];
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (p.endsWith('.parquet') && predicate(p)) out.push(p);
    }
  };
  if (fs.existsSync(root)) walk(root);
  return out.sort();
}

const DMS_SEQ = "CASE WHEN AR_H_CHANGE_SEQ IS NULL OR AR_H_CHANGE_SEQ = '' THEN CAST(0 AS HUGEINT) " +
  'ELSE CAST(AR_H_CHANGE_SEQ AS HUGEINT) END';
const DMS_DELETE = "coalesce(Op, 'I') = 'D'";

const DMS_ORDER = { employee: DMS_SEQ, orders: DMS_SEQ, shifts: 'CAST(dms_ts AS TIMESTAMP)' };

// The DMS tables floe wrote under `dir` against the oracle of the (Parquet) files under `zone`.
async function checkDms(dir, zone, tables = ['employee', 'orders', 'shifts']) {
  const problems = [];
  for (const table of tables) {
    const orderSql = DMS_ORDER[table];
    const files = filesUnder(zone, (p) => p.includes(`${path.sep}${table}${path.sep}`));
    const expected = await oracleLatest(db, files, { orderSql, deleteSql: DMS_DELETE });
    const actual = scan(dir, `dms.${table}`);
    if (actual.duplicates.length) problems.push(`dms.${table}: duplicate keys ${actual.duplicates.slice(0, 5)}`);
    problems.push(...compareByKey(expected, actual.rows, { label: `dms.${table}` }));
  }
  return problems;
}

test('DMS: full loads then CDC files, out of order across files and runs, equal the DuckDB oracle', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'dms-'));
  const zone = path.join(dir, 'dms-target');
  await dmsZone(db, zone, { seed: 3, round: 0 });
  const config = writeConfig(dir, `[source]
changes = "dms"
uri = "${zone}"
settle = "0s"
[target]
namespace = "dms"
[merge]
keys = ["id"]
[trigger]
max_files_per_batch = 2
[tables.shifts]
order_by = "dms_ts"`);
  const first = runFloe(['run', config, '--once']);
  assert.equal(first.status, 0, `floe run failed:\n${first.stderr}\n${first.stdout}`);
  assert.deepEqual(await checkDms(dir, zone), []);
  // LOAD*.parquet went first, although dated CDC folders sort before them by path.
  const ledger = ledgerFiles(config);
  for (const table of ['employee', 'orders', 'shifts']) {
    const batches = (loads) => ledger.filter((f) => f.table === table && /LOAD\d+\.parquet$/.test(f.uri) === loads)
      .map((f) => f.batch);
    assert.ok(batches(true).length === 2 && batches(false).length > 0, table);
    assert.ok(Math.max(...batches(true)) < Math.min(...batches(false)), `${table}: a CDC file went before a full load`);
    assert.ok(ledger.filter((f) => f.table === table).every((f) => f.state === 'committed'), table);
  }

  // More CDC files, some holding changes older than ones already in the table.
  await dmsZone(db, zone, { seed: 3, round: 1 });
  const second = runFloe(['run', config, '--once']);
  assert.equal(second.status, 0, `second run failed:\n${second.stderr}\n${second.stdout}`);
  assert.deepEqual(await checkDms(dir, zone), []);
});

// A DMS target in CSV (DMS's default): the Parquet zone's files of `tables`
// rewritten by DuckDB as headerless CSV at the same paths (DMS writes no
// header unless addColumnName is set). Returns the CSV files (new ones only
// are written: a file DMS wrote never changes).
async function dmsCsvZone(parquetZone, csvZone, tables) {
  const out = [];
  for (const file of filesUnder(parquetZone, (p) => tables.some((t) => p.includes(`${path.sep}${t}${path.sep}`)))) {
    const target = path.join(csvZone, path.relative(parquetZone, file)).replace(/\.parquet$/, '.csv');
    out.push(target);
    if (fs.existsSync(target)) continue;  // written by an earlier round
    fs.mkdirSync(path.dirname(target), { recursive: true });
    await db.connection.run(`COPY (SELECT * FROM read_parquet(${sqlString(file)})) TO ${sqlString(target)} ` +
      '(FORMAT csv, HEADER false)');
  }
  return out;
}

test('DMS CSV without a header row: column names from config, full loads then CDC files out of order, equal the DuckDB oracle',
  async (t) => {
    if (skipWithoutFloe(t)) return;
    const dir = fs.mkdtempSync(path.join(work, 'dms-csv-'));
    const parquet = path.join(dir, 'parquet');
    const zone = path.join(dir, 'dms-target');
    const tables = ['employee', 'orders'];
    await dmsZone(db, parquet, { seed: 5, round: 0 });
    const csvFiles = await dmsCsvZone(parquet, zone, tables);
    assert.ok(csvFiles.some((f) => f.endsWith('LOAD00000001.csv')) && csvFiles.some((f) => /\d{8}-\d+\.csv$/.test(f)));
    // employee: one list for every table ([source]); orders: its own ([tables.orders]).
    const config = writeConfig(dir, `[source]
changes = "dms"
format = "csv"
uri = "${zone}"
settle = "0s"
column_names = ["Op", "AR_H_CHANGE_SEQ", "id", "name", "salary"]
[target]
namespace = "dms"
[merge]
keys = ["id"]
[trigger]
max_files_per_batch = 2
[tables.orders]
column_names = ["Op", "AR_H_CHANGE_SEQ", "id", "customer", "amount"]`);
    const check = () => checkDms(dir, parquet, tables);
    const first = runFloe(['run', config, '--once']);
    assert.equal(first.status, 0, `floe run failed:\n${first.stderr}\n${first.stdout}`);
    assert.deepEqual(await check(), []);
    const ledger = ledgerFiles(config);
    assert.ok(ledger.length === csvFiles.length && ledger.every((f) => f.state === 'committed'),
      JSON.stringify(ledger.filter((f) => f.state !== 'committed')));
    // More CDC files, some holding changes older than ones already in the table.
    await dmsZone(db, parquet, { seed: 5, round: 1 });
    await dmsCsvZone(parquet, zone, tables);
    const second = runFloe(['run', config, '--once']);
    assert.equal(second.status, 0, `second run failed:\n${second.stderr}\n${second.stdout}`);
    assert.deepEqual(await check(), []);
  });

async function checkDebezium(dir, zone) {
  const problems = [];
  const order = '__source_ts_ms, __lsn';
  const remove = "coalesce(__op, 'r') = 'd'";
  const customers = await oracleLatest(db, filesUnder(path.join(zone, 'inventory', 'customers')), {
    keyColumns: ['region', 'id'], orderSql: order.split(', ').join(' DESC, '), deleteSql: remove });
  const customerRows = scan(dir, 'cdc.customers', ['region', 'id']);
  if (customerRows.duplicates.length) problems.push(`cdc.customers: duplicate keys ${customerRows.duplicates.slice(0, 5)}`);
  problems.push(...compareByKey(customers, customerRows.rows, { label: 'cdc.customers' }));
  const orders = await oracleLatest(db, filesUnder(path.join(zone, 'inventory', 'orders')), {
    orderSql: order.split(', ').join(' DESC, '), deleteSql: remove });
  const orderRows = scan(dir, 'cdc.orders');
  problems.push(...compareByKey(orders, orderRows.rows, { label: 'cdc.orders' }));
  return problems;
}

test('Debezium files: string codes, two ordering columns, Hive columns as key and partition equal the oracle',
  async (t) => {
    if (skipWithoutFloe(t)) return;
    const dir = fs.mkdtempSync(path.join(work, 'debezium-'));
    const zone = path.join(dir, 'debezium');
    await debeziumZone(db, zone, { seed: 5, round: 0 });
    const config = writeConfig(dir, `[source]
format = "parquet"
uri = "${zone}"
table_from_path = "{schema}/{table}/**"
partition_column_types = { region = "string" }
settle = "0s"
[target]
namespace = "cdc"
[merge]
mode = "merge"
keys = ["id"]
order_by = ["__source_ts_ms", "__lsn"]
order_kind = ["number", "number"]
operation_column = "__op"
insert_values = ["c", "r"]
update_values = ["u"]
delete_values = ["d"]
ignore_values = []
missing_operation = "upsert"
[trigger]
max_files_per_batch = 3
[tables.customers]
keys = ["region", "id"]
partition_by = ["region"]`);
    const first = runFloe(['run', config, '--once']);
    assert.equal(first.status, 0, `floe run failed:\n${first.stderr}\n${first.stdout}`);
    assert.deepEqual(await checkDebezium(dir, zone), []);
    const described = runFloeOk(['table', 'describe', 'cdc.customers', ...catalogOf(dir)]).stdout;
    assert.match(described, /: region = identity\(\d+\)|region = identity/, described);
    assert.match(described, /identifier fields: \d+ \d+/, 'the merge key is recorded as identifier fields');

    await debeziumZone(db, zone, { seed: 5, round: 1 });
    const second = runFloe(['run', config, '--once']);
    assert.equal(second.status, 0, `second run failed:\n${second.stderr}\n${second.stdout}`);
    assert.deepEqual(await checkDebezium(dir, zone), []);
  });

const SALES = [{ name: 'id', type: 'BIGINT' }, { name: 'item', type: 'VARCHAR' }, { name: 'revenue', type: 'DOUBLE' }];

test('item 5: a new table takes the types most files agree on; the odd file is rescued, named', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'vote-'));
  const zone = path.join(dir, 'sales');
  // Sorts first, with revenue as text.
  await writeWithDuckDB(db, path.join(zone, 'a-export.parquet'),
    [{ name: 'id', type: 'BIGINT' }, { name: 'item', type: 'VARCHAR' }, { name: 'revenue', type: 'VARCHAR' }],
    [[1, 'x', '12.50 EUR']]);
  for (let f = 0; f < 4; ++f) {
    const rows = [[10 + f, `i${f}`, 100.25 + f], [20 + f, `j${f}`, 7.5]];
    const file = path.join(zone, `b-${f}.parquet`);
    if (f % 2) writeWithArrowRs(file, SALES, rows); else await writeWithDuckDB(db, file, SALES, rows);
  }
  const config = writeConfig(dir, `[source]\nformat = "parquet"\nuri = "${zone}"\nsettle = "0s"`);
  const run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, run.stderr);
  const described = runFloeOk(['table', 'describe', 'default.sales', ...catalogOf(dir)]).stdout;
  assert.match(described, /: revenue double/, described);
  assert.match(run.stderr, /column revenue: values go to _rescued_data .*\(in .*a-export\.parquet\)/, run.stderr);
  const rows = scan(dir, 'default.sales');
  assert.equal(rows.rows.get('11').revenue, '101.25');
  assert.match(rows.rows.get('1')._rescued_data, /12\.50 EUR/);

  // schema_sample_files = 1: only the first file is sampled, so its text
  // revenue gives the table its type.
  const one = fs.mkdtempSync(path.join(work, 'vote-one-'));
  const oneConfig = writeConfig(one, `[source]\nformat = "parquet"\nuri = "${zone}"\nsettle = "0s"\nschema_sample_files = 1`);
  const oneRun = runFloe(['run', oneConfig, '--once']);
  assert.equal(oneRun.status, 0, oneRun.stderr);
  assert.match(runFloeOk(['table', 'describe', 'default.sales', ...catalogOf(one)]).stdout, /: revenue string/);
});

test('item 6: bad rows go to <table>__bad_rows with file, row and reason; the rest of the file lands, once',
  async (t) => {
    if (skipWithoutFloe(t)) return;
    const dir = fs.mkdtempSync(path.join(work, 'bad-rows-'));
    const zone = path.join(dir, 'events');
    const columns = [{ name: 'id', type: 'BIGINT' }, { name: 'seq', type: 'BIGINT' }, { name: 'op', type: 'VARCHAR' },
      { name: 'v', type: 'VARCHAR' }];
    const bad = path.join(zone, 'part-0.parquet');
    await writeWithDuckDB(db, bad, columns,
      [[1, 1, 'I', 'a'], [null, 2, 'I', 'null key'], [3, 3, 'X', 'unknown code'], [4, null, 'I', 'no order'],
        [5, 5, 'I', 'e']]);
    writeWithArrowRs(path.join(zone, 'part-1.parquet'), columns, [[1, 9, 'U', 'a2'], [6, 6, 'I', 'f']]);
    const config = writeConfig(dir, `[source]
format = "parquet"
uri = "${zone}"
settle = "0s"
[merge]
mode = "merge"
keys = ["id"]
order_by = "seq"
operation_column = "op"
insert_values = ["I"]
update_values = ["U"]
delete_values = ["D"]
ignore_values = []
[schema]
on_bad_row = "table"`);
    const run = runFloe(['run', config, '--once']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /3 bad rows of batch \d+ set aside in default\.events__bad_rows/, run.stderr);
    const rows = scan(dir, 'default.events');
    assert.deepEqual([...rows.rows.keys()].sort(), ['1', '5', '6']);
    assert.equal(rows.rows.get('1').v, 'a2');
    const { stdout } = runFloeOk(['table', 'scan', 'default.events__bad_rows', ...catalogOf(dir), '--format', 'csv']);
    const badRows = rowsByKeyFromScanCsv(stdout, ['row']);
    assert.deepEqual([...badRows.rows.keys()].sort(), ['1', '2', '3']);
    for (const row of badRows.rows.values()) assert.equal(row.file, bad);
    assert.match(badRows.rows.get('1').reason, /column id/);
    assert.match(badRows.rows.get('2').reason, /unknown operation code "X"/);
    assert.match(badRows.rows.get('3').reason, /column seq .*ordering value is null/);
    // Nothing new: no second copy of the bad rows.
    runFloeOk(['run', config, '--once']);
    const again = runFloeOk(['table', 'scan', 'default.events__bad_rows', ...catalogOf(dir), '--format', 'csv']).stdout;
    assert.equal(rowsByKeyFromScanCsv(again, ['row']).rows.size, 3);
    assert.equal(again.trim().split('\n').length, 4);
  });

test('item 7: a source uri that does not exist is an error, or a warning when allowed', (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'missing-'));
  const zone = path.join(dir, 'not-there');
  const config = writeConfig(dir, `[source]\nformat = "parquet"\nuri = "${zone}"`);
  const run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /source .*not-there does not exist/);
  const allowed = writeConfig(dir, `[source]\nformat = "parquet"\nuri = "${zone}"\nallow_missing_uri = true`,
    { file: 'allowed.toml', name: 'allowed' });
  const waiting = runFloe(['run', allowed, '--once']);
  assert.equal(waiting.status, 0, waiting.stderr);
  assert.match(waiting.stderr, /warning: source .*not-there does not exist \(yet\)/);
});

test('item 8: a changed merge key is refused; a changed partition_by evolves the spec for new data', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'keys-'));
  const zone = path.join(dir, 'items');
  const columns = [{ name: 'id', type: 'BIGINT' }, { name: 'sku', type: 'VARCHAR' }, { name: 'seq', type: 'BIGINT' }];
  await writeWithDuckDB(db, path.join(zone, 'p0.parquet'), columns, [[1, 'a', 1], [2, 'b', 1]]);
  const body = (keys, partition) => `[source]
format = "parquet"
uri = "${zone}"
settle = "0s"
[target]
partition_by = ${partition}
[merge]
mode = "merge"
keys = ${keys}
order_by = "seq"`;
  const config = writeConfig(dir, body('["id"]', '[]'));
  runFloeOk(['run', config, '--once']);
  writeWithArrowRs(path.join(zone, 'p1.parquet'), columns, [[1, 'c', 2]]);
  const changedKey = writeConfig(dir, body('["sku"]', '[]'));
  const refused = runFloe(['run', changedKey, '--once']);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr + refused.stdout, /records its merge key \["id"\].*keys = \["sku"\] would merge by another key/s);
  const repartitioned = writeConfig(dir, body('["id"]', '["bucket(4, id)"]'));
  const evolved = runFloe(['run', repartitioned, '--once']);
  assert.equal(evolved.status, 0, evolved.stderr);
  assert.match(evolved.stderr, /partition spec evolved from unpartitioned to bucket\[4\]\(id\)/);
  const described = runFloeOk(['table', 'describe', 'default.items', ...catalogOf(dir)]).stdout;
  assert.match(described, /partition spec 1:/);
  const rows = scan(dir, 'default.items');
  assert.deepEqual([...rows.rows.keys()].sort(), ['1', '2']);
  assert.equal(rows.rows.get('1').sku, 'c');
});

test('item 9: a second pipeline writing to the same table is warned about', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'two-'));
  const zone = path.join(dir, 'clicks');
  await writeWithDuckDB(db, path.join(zone, 'a.parquet'), [{ name: 'n', type: 'BIGINT' }], [[1]]);
  const body = `[source]\nformat = "parquet"\nuri = "${zone}"\nsettle = "0s"`;
  runFloeOk(['run', writeConfig(dir, body, { name: 'first', file: 'first.toml' }), '--once']);
  const second = runFloe(['run', writeConfig(dir, body, { name: 'second', file: 'second.toml' }), '--once']);
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stderr, /table default\.clicks also receives commits from pipeline "first"/);
});

test('item 10: --once says which files wait to settle and until when; --verbose lines carry times', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'settle-'));
  const zone = path.join(dir, 'fresh');
  await writeWithDuckDB(db, path.join(zone, 'just-landed.parquet'), [{ name: 'n', type: 'BIGINT' }], [[1]]);
  const config = writeConfig(dir, `[source]\nformat = "parquet"\nuri = "${zone}"\nsettle = "1h"`);
  const run = runFloe(['run', config, '--once', '--verbose']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /1 file is still settling \(changed less than \[source\] settle = 1 h|1 file is still settling/);
  assert.match(run.stdout, /the next run takes it from \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);
  assert.match(run.stderr, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z 1 file is settling/m);
});

test('item 11: a quarantined file that is rewritten is taken again; one quarantine spelling; earlier ones summed',
  async (t) => {
    if (skipWithoutFloe(t)) return;
    const dir = fs.mkdtempSync(path.join(work, 'messages-'));
    const zone = path.join(dir, 'm');
    const broken = path.join(zone, 'broken.parquet');
    const other = path.join(zone, 'other.parquet');
    fs.mkdirSync(zone, { recursive: true });
    fs.writeFileSync(broken, 'not parquet');
    fs.writeFileSync(other, 'not parquet either');
    await writeWithDuckDB(db, path.join(zone, 'good.parquet'), [{ name: 'n', type: 'BIGINT' }], [[1]]);
    const config = writeConfig(dir, `[source]\nformat = "parquet"\nuri = "${zone}"\nsettle = "0s"`);
    const first = runFloe(['run', config, '--once']);
    assert.equal(first.status, 1);
    const lines = first.stderr.split('\n').filter((l) => /quarantined \//.test(l));
    assert.equal(lines.length, 2, first.stderr);
    for (const line of lines) {
      assert.match(line, /^quarantined \/\S+\.parquet: /);
      const uri = /^quarantined (\S+): /.exec(line)[1];
      assert.equal(line.split(uri).length, 2, `the reason repeats the path: ${line}`);
    }
    // The user fixes one file; the other stays quarantined.
    await writeWithDuckDB(db, broken, [{ name: 'n', type: 'BIGINT' }], [[2]]);
    const second = runFloe(['run', config, '--once']);
    assert.equal(second.status, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /changed after it was ingested/);
    assert.match(second.stderr, /broken\.parquet was quarantined \(.*\) and has changed since: it is taken again/);
    assert.match(second.stdout, /1 file quarantined by earlier runs stays set aside/);
    const state = new Map(ledgerFiles(config).map((f) => [path.basename(f.uri), f.state]));
    assert.equal(state.get('broken.parquet'), 'committed');
    assert.equal(state.get('other.parquet'), 'quarantined');
  });

test('item 12: floe table commands never create a catalog and need no --warehouse', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'catalog-'));
  const typo = path.join(dir, 'typo.db');
  const list = runFloe(['table', 'list', '--catalog', `sqlite://${typo}`]);
  assert.notEqual(list.status, 0);
  assert.equal(fs.existsSync(typo), false, 'listing created the database');
  const zone = path.join(dir, 't');
  await writeWithDuckDB(db, path.join(zone, 'a.parquet'), [{ name: 'n', type: 'BIGINT' }], [[1]]);
  runFloeOk(['run', writeConfig(dir, `[source]\nformat = "parquet"\nuri = "${zone}"\nsettle = "0s"`), '--once']);
  for (const args of [['list', 'default'], ['describe', 'default.t'], ['history', 'default.t'], ['files', 'default.t'],
    ['scan', 'default.t'], ['compact', 'default.t', '--dry-run'], ['expire', 'default.t', '--dry-run'],
    ['rewrite-manifests', 'default.t', '--dry-run'], ['remove-orphans', 'default.t', '--dry-run']]) {
    const run = runFloe(['table', ...args, ...catalogOf(dir)]);
    assert.equal(run.status, 0, `floe table ${args.join(' ')} without --warehouse: ${run.stderr}`);
  }
});

test('item 13: floe files --retry takes one file or a glob; --skip sets a file aside with a reason', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'retry-'));
  const zone = path.join(dir, 'r');
  fs.mkdirSync(path.join(zone, 'day=1'), { recursive: true });
  fs.mkdirSync(path.join(zone, 'day=2'), { recursive: true });
  for (const name of ['day=1/x.parquet', 'day=1/y.parquet', 'day=2/z.parquet']) fs.writeFileSync(path.join(zone, name), 'junk');
  await writeWithDuckDB(db, path.join(zone, 'day=2/w.parquet'), [{ name: 'n', type: 'BIGINT' }], [[1]]);
  const config = writeConfig(dir, `[source]\nformat = "parquet"\nuri = "${zone}"\nsettle = "0s"`);
  assert.equal(runFloe(['run', config, '--once']).status, 1);
  const states = () => new Map(ledgerFiles(config).map((f) => [path.relative(zone, f.uri), f]));
  assert.equal(states().get('day=1/x.parquet').state, 'quarantined');

  const one = runFloeOk(['files', config, '--retry', path.join(zone, 'day=1/x.parquet')]);
  assert.match(one.stdout, /1 file back to discovered/);
  assert.equal(states().get('day=1/x.parquet').state, 'discovered');
  assert.equal(states().get('day=1/y.parquet').state, 'quarantined');

  const skipped = runFloeOk(['files', config, '--skip', 'day=1/x.parquet', '--reason', 'vendor resends it']);
  assert.match(skipped.stdout, /skipped .*x\.parquet: vendor resends it/);
  assert.equal(states().get('day=1/x.parquet').state, 'skipped');
  assert.equal(states().get('day=1/x.parquet').reason, 'vendor resends it');

  const glob = runFloeOk(['files', config, '--retry', 'day=1/*.parquet']);
  assert.match(glob.stdout, /2 files back to discovered/);
  assert.equal(states().get('day=2/z.parquet').state, 'quarantined');
  const none = runFloe(['files', config, '--retry', 'day=9/*.parquet']);
  assert.equal(none.status, 1);
  assert.match(none.stderr, /--retry day=9\/\*\.parquet: no file in the ledger/);
  const committed = runFloe(['files', config, '--skip', path.join(zone, 'day=2/w.parquet')]);
  assert.equal(committed.status, 1);
  assert.match(committed.stderr, /committed already/);
});
