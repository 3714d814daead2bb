// Landing files in JSON lines, CSV and Avro through the pipeline (issue 17):
// every input is written by another tool (DuckDB's COPY ... (FORMAT json|csv),
// Python's csv module when python3 is present, avsc), and what floe merges is
// compared with what DuckDB computes from the same files (read_json /
// read_csv) or with what avsc decodes.
// - CDC through the generic-columns convention over JSON lines and CSV
//   (key id, ordering seq, op I/U/D), across files and runs, with inference
//   and a schema hint;
// - bad records: rescued into _rescued_data with file and line (the rest of
//   the file lands), or with on_bad_record = "quarantine" the file is
//   quarantined and the others land; a later file with a new field evolves
//   the table; a field whose type changes incompatibly is rescued;
// - Avro container files from avsc land as avsc decodes them.
//
// Env: FLOE_BIN (required).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDuckDB, sqlString } from '../tools/readers.mjs';
import { catalogOf, compareByKey, scanZoneTable, writeZoneConfig } from '../tools/landing_zones.mjs';
import { writeAvsc } from '../tools/avsc_files.mjs';
import { FLOE, runFloe, runFloeOk, skipWithoutFloe } from '../tools/pipeline_oracle.mjs';

let db;
let work;
before(async () => {
  if (FLOE) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-text-landing-'));
});
after(() => {
  db?.close();
  if (work && !process.env.FLOE_KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

const writeConfig = (dir, body) => writeZoneConfig(dir, body, { name: 'text' });
const scan = scanZoneTable;

const MERGE = `[merge]
mode = "merge"
keys = ["id"]
order_by = "seq"
operation_column = "op"
insert_values = ["I"]
update_values = ["U"]
delete_values = ["D"]`;

// Rows [lo, hi) of a change stream over 9 keys: every type the issue lists,
// nulls, quotes, embedded newlines and UTF-8.
const changes = (lo, hi) => `SELECT (i % 9)::INTEGER AS id, i::BIGINT AS seq,
  CASE WHEN i % 5 = 4 THEN 'D' WHEN i < 9 THEN 'I' ELSE 'U' END AS op,
  (i * 1.25)::DECIMAL(12,2) AS amount, i / 3.0::DOUBLE AS price, i % 2 = 0 AS active,
  DATE '2026-01-01' + i::INTEGER AS day, TIMESTAMP '2026-01-01 10:00:00' + to_seconds(i * 3601) AS at,
  CASE WHEN i % 3 = 0 THEN NULL WHEN i % 3 = 1 THEN 'he said "hi",' || chr(10) || 'then left'
       ELSE 'héllo ß ' || i END AS note
  FROM range(${lo}, ${hi}) t(i)`;

// The newest change per id of `reader` (a DuckDB table function over every
// file), deletes dropped, values printed as `floe table scan` prints them.
async function oracle(reader) {
  const sql = `WITH ranked AS (
      SELECT *, row_number() OVER (PARTITION BY id ORDER BY seq DESC) AS rk FROM ${reader})
    SELECT CAST(id AS VARCHAR) AS id, CAST(seq AS VARCHAR) AS seq, op,
      CAST(CAST(amount AS DECIMAL(12,2)) AS VARCHAR) AS amount, CAST(price AS VARCHAR) AS price,
      CAST(active AS VARCHAR) AS active, CAST(day AS VARCHAR) AS day,
      strftime(CAST("at" AS TIMESTAMP), '%Y-%m-%dT%H:%M:%S.%f') AS "at", note
    FROM ranked WHERE rk = 1 AND op <> 'D'`;
  const rows = new Map();
  for (const row of await db.all(sql)) rows.set(row.id, row);
  return rows;
}

const TEXT_SOURCE = `settle = "0s"
table = "orders"
infer_column_types = true
schema_hints = "amount DECIMAL(12,2)"
[target]
namespace = "raw"`;

for (const format of ['jsonl', 'csv']) {
  test(`${format}: CDC files written by DuckDB merge to what DuckDB computes from them`, async (t) => {
    if (skipWithoutFloe(t)) return;
    const dir = fs.mkdtempSync(path.join(work, `${format}-`));
    const zone = path.join(dir, 'zone');
    fs.mkdirSync(zone);
    const copy = format === 'jsonl' ? '(FORMAT json)' : '(FORMAT csv, HEADER)';
    const write = async (name, lo, hi) => db.all(`COPY (${changes(lo, hi)}) TO ${sqlString(path.join(zone, name))} ${copy}`);
    await write(`part-1.${format}`, 0, 12);
    await write(`part-2.${format}`, 12, 20);
    const config = writeConfig(dir, `[source]\nformat = "${format}"\nuri = "${zone}"\n${TEXT_SOURCE}\n${MERGE}`);
    let run = runFloe(['run', config, '--once']);
    assert.equal(run.status, 0, run.stderr);
    // A second run with more files, one of them compressed (gzip by name and magic bytes).
    await write(`part-3.${format}`, 20, 31);
    const gz = path.join(zone, `part-4.${format}.gz`);
    await db.all(`COPY (${changes(31, 40)}) TO ${sqlString(gz)} ${copy.replace(')', ', COMPRESSION gzip)')}`);
    let pythonWrote = false;
    if (format === 'csv') {
      // Python's csv module: CRLF line ends, minimal quoting, a BOM-less UTF-8 file.
      const script = `import csv, sys
w = csv.writer(open(sys.argv[1], 'w', newline='', encoding='utf-8'))
w.writerow(['id','seq','op','amount','price','active','day','at','note'])
w.writerow([3, 100, 'U', '99.10', '0.5', 'true', '2026-03-01', '2026-03-01 08:30:00', 'from "python", with\\r\\nCRLF'])
w.writerow([4, 101, 'I', '1.00', '2.5', 'false', '2026-03-02', '2026-03-02 09:00:00', ''])`;
      const py = spawnSync('python3', ['-c', script, path.join(zone, 'part-5.csv')], { encoding: 'utf8' });
      pythonWrote = py.status === 0;
      if (!pythonWrote) t.diagnostic(`python3 unavailable, its CSV file skipped: ${py.error?.message ?? py.stderr}`);
    }
    run = runFloe(['run', config, '--once']);
    assert.equal(run.status, 0, run.stderr);
    const files = fs.readdirSync(zone).map((f) => sqlString(path.join(zone, f)));
    const reader = format === 'jsonl'
      ? `read_json([${files.join(', ')}], format = 'newline_delimited', union_by_name = true)`
      : `read_csv([${files.join(', ')}], header = true, union_by_name = true, types = {'amount': 'DECIMAL(12,2)', 'note': 'VARCHAR'})`;
    const expected = await oracle(reader);
    if (pythonWrote) assert.equal(expected.get('3').note, 'from "python", with\r\nCRLF');
    const actual = scan(dir, 'raw.orders');
    assert.deepEqual(actual.duplicates, []);
    assert.deepEqual(compareByKey(expected, actual.rows, { label: format }), []);
    // The types were inferred (and hinted), not all strings.
    const schema = runFloeOk(['table', 'describe', 'raw.orders', ...catalogOf(dir)]).stdout;
    for (const want of [/amount\s.*decimal\(12, ?2\)/, /price\s.*double/, /active\s.*boolean/, /day\s.*date/,
      /at\s.*timestamp/, /seq\s.*long/]) {
      assert.match(schema, want, schema);
    }
  });
}

test('bad records are rescued with file and line, the rest lands; quarantine takes the whole file', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'bad-'));
  const zone = path.join(dir, 'zone');
  fs.mkdirSync(zone);
  fs.writeFileSync(path.join(zone, 'a.jsonl'), [
    '{"id": 1, "seq": 1, "op": "I", "amount": 1.50, "v": "a"}',
    '{"id": 2, "seq": 2, "op": "I", "amount": "abc", "v": "b"}',
    '{"id": 3, "seq": 3, "op": "I", "amount": 3.00, "v": "c"',
    '{"id": 4, "seq": 4, "op": "I", "amount": 4.25, "v": "d"}',
  ].join('\n') + '\n');
  // The broken line (3) is rescued whole, so it has no key or operation: a
  // bad row, set aside in raw.orders__bad_rows with its file and row.
  const config = writeConfig(dir, `[source]\nformat = "jsonl"\nuri = "${zone}"\n${TEXT_SOURCE}\n${MERGE}\n[schema]\non_bad_row = "table"`);
  let run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, run.stderr);
  let rows = scan(dir, 'raw.orders');
  assert.deepEqual([...rows.rows.keys()].sort(), ['1', '2', '4']);
  const bad = scan(dir, 'raw.orders__bad_rows', ['row']);
  assert.deepEqual([...bad.rows.keys()], ['2']);
  assert.match(bad.rows.get('2').file, /a\.jsonl$/);
  // The bad row keeps the broken line's text, and its reason says it broke.
  assert.match(bad.rows.get('2').reason, /^broken record: JSON document ended early/);
  const kept = JSON.parse(bad.rows.get('2').rescued_data);
  assert.equal(kept._raw, '{"id": 3, "seq": 3, "op": "I", "amount": 3.00, "v": "c"');
  assert.equal(kept._line, 3);
  assert.equal(rows.rows.get('2').amount, null);
  const rescued = JSON.parse(rows.rows.get('2')._rescued_data);
  assert.equal(rescued.amount, 'abc');
  assert.match(rescued._file_path, /a\.jsonl$/);
  assert.equal(rescued._line, 2);

  // A later file with a new field evolves the table; one whose amount is
  // text throughout is incompatible with decimal(12,2) and is rescued.
  fs.writeFileSync(path.join(zone, 'b.jsonl'), '{"id": 5, "seq": 5, "op": "I", "amount": 5.5, "v": "e", "extra": true}\n');
  run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, run.stderr);
  rows = scan(dir, 'raw.orders');
  assert.equal(rows.rows.get('5').extra, 'true');
  assert.equal(rows.rows.get('1').extra, null);

  // on_bad_record = "quarantine": the file with a broken line is set aside
  // with a message naming file and line, the good file lands.
  const qdir = fs.mkdtempSync(path.join(work, 'quarantine-'));
  const qzone = path.join(qdir, 'zone');
  fs.mkdirSync(qzone);
  fs.copyFileSync(path.join(zone, 'a.jsonl'), path.join(qzone, 'a.jsonl'));
  fs.copyFileSync(path.join(zone, 'b.jsonl'), path.join(qzone, 'b.jsonl'));
  const qconfig = writeConfig(qdir, `[source]\nformat = "jsonl"\nuri = "${qzone}"\non_bad_record = "quarantine"\n${TEXT_SOURCE}\n${MERGE}`);
  run = runFloe(['run', qconfig, '--once']);
  assert.equal(run.status, 1, run.stderr);  // a run that quarantined a file says so in its exit code
  assert.match(run.stderr, /quarantined \S+a\.jsonl: line \d+, byte \d+: JSON /, run.stderr);
  rows = scan(qdir, 'raw.orders');
  assert.deepEqual([...rows.rows.keys()].sort(), ['5']);
});

test('Avro container files written by avsc land as avsc decodes them, and a new writer field evolves the table', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'avro-'));
  const zone = path.join(dir, 'zone');
  fs.mkdirSync(zone);
  const v1 = {
    type: 'record', name: 'Order', fields: [
      { name: 'id', type: 'int' }, { name: 'seq', type: 'long' }, { name: 'op', type: 'string' },
      { name: 'price', type: ['null', 'double'], default: null }, { name: 'note', type: ['null', 'string'], default: null },
    ],
  };
  const v2 = { ...v1, fields: [...v1.fields, { name: 'region', type: ['null', 'string'], default: null }] };
  const rec = (id, seq, op, price, note, region) => {
    const r = { id, seq: BigInt(seq), op, price: price === null ? null : { double: price }, note: note === null ? null : { string: note } };
    if (region !== undefined) r.region = region === null ? null : { string: region };
    return r;
  };
  await writeAvsc(path.join(zone, 'a.avro'), v1, [rec(1, 1, 'I', 1.5, 'a'), rec(2, 2, 'I', null, 'ü "q"'), rec(3, 3, 'I', 3.25, null)], 'deflate');
  await writeAvsc(path.join(zone, 'b.avro'), v2, [rec(1, 4, 'U', 9.5, 'a2', 'eu'), rec(3, 5, 'D', null, null, null), rec(4, 6, 'I', 0.1, 'd', 'us')], 'snappy');
  const config = writeConfig(dir, `[source]\nformat = "avro"\nuri = "${zone}"\nsettle = "0s"\ntable = "orders"\n[target]\nnamespace = "raw"\n${MERGE}`);
  const run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, run.stderr);
  const rows = scan(dir, 'raw.orders');
  const want = new Map([
    ['1', { id: '1', seq: '4', op: 'U', price: '9.5', note: 'a2', region: 'eu' }],
    ['2', { id: '2', seq: '2', op: 'I', price: null, note: 'ü "q"', region: null }],
    ['4', { id: '4', seq: '6', op: 'I', price: '0.1', note: 'd', region: 'us' }],
  ]);
  assert.deepEqual(compareByKey(want, rows.rows, { label: 'avro' }), []);

  // A later writer renames note to comment, with the old name as an alias:
  // its values keep going to the note column.
  const v3 = { ...v2, fields: v2.fields.map((f) => (f.name === 'note' ? { ...f, name: 'comment', aliases: ['note'] } : f)) };
  const rec3 = (id, seq, comment) => ({ id, seq: BigInt(seq), op: 'U', price: null, comment: { string: comment }, region: null });
  await writeAvsc(path.join(zone, 'c.avro'), v3, [rec3(2, 7, 'renamed')], 'null');
  const again = runFloe(['run', config, '--once']);
  assert.equal(again.status, 0, again.stderr);
  const after = scan(dir, 'raw.orders');
  assert.equal(after.rows.get('2').note, 'renamed');
  assert.ok(!after.columns.includes('comment'), after.columns.join(','));
});

// Debezium change events as Debezium Server writes them to files: one JSON
// object per line, with or without the JSON converter's schema/payload
// wrapper; written by DuckDB, merged by key on source.lsn, compared with
// DuckDB's own newest-change-per-key over the same files.
const debeziumEvents = (lo, hi, { lsnBase = 1000 } = {}) => `SELECT
  CASE WHEN op IN ('c', 'r') THEN NULL ELSE {'id': id, 'name': 'old ' || i, 'price': (i * 1.5)::DOUBLE} END AS before,
  CASE WHEN op = 'd' THEN NULL
       ELSE {'id': id, 'name': CASE WHEN i % 4 = 1 THEN 'ünï "q"' || chr(10) || i ELSE 'n ' || i END,
             'price': CASE WHEN i % 6 = 2 THEN NULL ELSE (i * 2.5)::DOUBLE END} END AS after,
  {'version': '2.5.0.Final', 'connector': 'postgresql', 'name': 'dbserver1', 'ts_ms': 1700000000000 + i * 1000,
   'db': 'inventory', 'schema': 'public', 'table': 'customers', 'lsn': ${lsnBase} + i} AS source,
  op, 1700000000500 + i * 1000 AS ts_ms
  FROM (SELECT i, (i % 7)::INTEGER AS id,
               CASE WHEN i < 7 THEN 'r' WHEN i % 5 = 3 THEN 'd' WHEN i % 11 = 0 THEN 'c' ELSE 'u' END AS op
        FROM range(${lo}, ${hi}) t(i))`;

test('Debezium change-event files (plain and schema/payload-wrapped) merge to what DuckDB computes', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'debezium-'));
  const zone = path.join(dir, 'zone');
  fs.mkdirSync(zone);
  const plain = async (name, lo, hi, options) =>
    db.all(`COPY (${debeziumEvents(lo, hi, options)}) TO ${sqlString(path.join(zone, name))} (FORMAT json)`);
  const wrapped = async (name, lo, hi) => db.all(`COPY (SELECT {'type': 'struct', 'optional': false,
      'name': 'dbserver1.public.customers.Envelope'} AS schema,
      {'before': before, 'after': after, 'source': source, 'op': op, 'ts_ms': ts_ms} AS payload
      FROM (${debeziumEvents(lo, hi)})) TO ${sqlString(path.join(zone, name))} (FORMAT json)`);
  await plain('events-0001.jsonl', 0, 20);
  await wrapped('events-0002.jsonl', 20, 35);
  const config = writeConfig(dir, `[source]
format = "jsonl"
uri = "${zone}"
table = "customers"
settle = "0s"
changes = "debezium"
infer_column_types = true
[target]
namespace = "inventory"
[merge]
keys = ["id"]
order_by = "source.lsn"`);
  let run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, run.stderr);
  // A later run: more changes, and a re-delivered older file (lower lsn)
  // that must neither resurrect deleted rows nor overwrite newer ones.
  await plain('events-0003.jsonl', 35, 50);
  await plain('events-0004-redelivered.jsonl', 10, 25);
  run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, run.stderr);

  const files = fs.readdirSync(zone).map((f) => sqlString(path.join(zone, f)));
  const events = `(SELECT coalesce(payload.op, op) AS op, coalesce(payload.after, after) AS after,
      coalesce(payload.before, before) AS before, coalesce(payload.source, source) AS source
    FROM read_json([${files.join(', ')}], format = 'newline_delimited', union_by_name = true))`;
  const sql = `WITH ranked AS (
      SELECT *, coalesce(after.id, before.id) AS key,
        row_number() OVER (PARTITION BY coalesce(after.id, before.id) ORDER BY source.lsn DESC) AS rk
      FROM ${events})
    SELECT CAST(key AS VARCHAR) AS id, after.name AS name, CAST(after.price AS VARCHAR) AS price,
      CAST(source.lsn AS VARCHAR) AS __source_lsn
    FROM ranked WHERE rk = 1 AND op <> 'd'`;
  const expected = new Map();
  for (const row of await db.all(sql)) expected.set(row.id, row);
  assert.ok(expected.size >= 3 && expected.size < 7, `the oracle keeps some keys and deletes others (${expected.size})`);
  const actual = scan(dir, 'inventory.customers');
  assert.deepEqual(actual.duplicates, []);
  assert.deepEqual(compareByKey(expected, actual.rows, { label: 'debezium' }), []);
  // The table holds the row image and the ordering value (which the key
  // index reads back), not the rest of Debezium's envelope.
  assert.deepEqual(actual.columns, ['id', 'name', 'price', '__source_lsn']);
});

test('Debezium change events in Avro container files (written by avsc) merge like the JSON ones', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'debezium-avro-'));
  const zone = path.join(dir, 'zone');
  fs.mkdirSync(zone);
  const value = {
    type: 'record', name: 'Value', namespace: 'dbserver1.inventory.customers', fields: [
      { name: 'id', type: 'int' }, { name: 'email', type: ['null', 'string'], default: null },
    ],
  };
  const envelope = {
    type: 'record', name: 'Envelope', namespace: 'dbserver1.inventory.customers', fields: [
      { name: 'before', type: ['null', value], default: null },
      { name: 'after', type: ['null', 'dbserver1.inventory.customers.Value'], default: null },
      { name: 'source', type: { type: 'record', name: 'Source', namespace: 'io.debezium.connector.postgresql', fields: [
        { name: 'ts_ms', type: 'long' }, { name: 'lsn', type: ['null', 'long'], default: null }] } },
      { name: 'op', type: 'string' },
      { name: 'ts_ms', type: ['null', 'long'], default: null },
    ],
  };
  const V = 'dbserver1.inventory.customers.Value';
  const row = (id, email) => ({ [V]: { id, email: email === null ? null : { string: email } } });
  const event = (op, lsn, before, after) => ({
    before, after, op, ts_ms: { long: BigInt(1700000000000 + lsn) },
    source: { ts_ms: BigInt(1700000000000 + lsn), lsn: { long: BigInt(lsn) } },
  });
  await writeAvsc(path.join(zone, 'a.avro'), envelope, [
    event('r', 1, null, row(1, 'a@x')), event('r', 2, null, row(2, 'b@x')), event('c', 3, null, row(3, null)),
    event('u', 4, row(1, 'a@x'), row(1, 'a2@x')), event('d', 5, row(2, 'b@x'), null),
  ], 'deflate');
  await writeAvsc(path.join(zone, 'b.avro'), envelope, [
    event('u', 2, row(1, 'a@x'), row(1, 'stale@x')),  // older than lsn 4: stale
    event('c', 6, null, row(4, 'ü@x')), event('d', 7, row(3, null), null),
  ], 'snappy');
  const config = writeConfig(dir, `[source]
format = "avro"
uri = "${zone}"
table = "customers"
settle = "0s"
changes = "debezium"
[merge]
keys = ["id"]
order_by = "source.lsn"`);
  const run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, run.stderr);
  const actual = scan(dir, 'default.customers');
  const want = new Map([
    ['1', { id: '1', email: 'a2@x', __source_lsn: '4' }],
    ['4', { id: '4', email: 'ü@x', __source_lsn: '6' }],
  ]);
  assert.deepEqual(compareByKey(want, actual.rows, { label: 'debezium avro' }), []);
});

test('a later file reads its columns with the table types: one odd value is rescued alone, with file and line', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'table-types-'));
  const zone = path.join(dir, 'zone');
  fs.mkdirSync(zone);
  fs.writeFileSync(path.join(zone, 'a.jsonl'), '{"id": 1, "seq": 1, "op": "I", "qty": 5, "label": "x"}\n');
  const config = writeConfig(dir, `[source]\nformat = "jsonl"\nuri = "${zone}"\n${TEXT_SOURCE}\n${MERGE}`);
  let run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, run.stderr);
  // Alone, this file would infer qty as a string (and label as a long):
  // read with the table's types, only the odd values are rescued.
  fs.writeFileSync(path.join(zone, 'b.jsonl'), [
    '{"id": 2, "seq": 2, "op": "I", "qty": 7, "label": 12}',
    '{"id": 3, "seq": 3, "op": "I", "qty": "lots", "label": 13}',
  ].join('\n') + '\n');
  run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, run.stderr);
  const rows = scan(dir, 'raw.orders');
  assert.equal(rows.rows.get('2').qty, '7');
  assert.equal(rows.rows.get('2')._rescued_data, null);
  assert.equal(rows.rows.get('2').label, '12');  // a number read into the string column as its text
  assert.equal(rows.rows.get('3').qty, null);
  const rescued = JSON.parse(rows.rows.get('3')._rescued_data);
  assert.equal(rescued.qty, 'lots');
  assert.match(rescued._file_path, /b\.jsonl$/);
  assert.equal(rescued._line, 2);
  const schema = runFloeOk(['table', 'describe', 'raw.orders', ...catalogOf(dir)]).stdout;
  assert.match(schema, /qty\s.*long/, schema);
});

test('a symbolic link to a file outside the landing zone is left out with a message; links inside are taken', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'links-'));
  const zone = path.join(dir, 'zone');
  const outside = path.join(dir, 'elsewhere');
  fs.mkdirSync(path.join(zone, '_store'), { recursive: true });
  fs.mkdirSync(outside);
  const line = (id) => `{"id": ${id}, "seq": ${id}, "op": "I"}\n`;
  fs.writeFileSync(path.join(zone, 'a.jsonl'), line(1));
  fs.writeFileSync(path.join(zone, '_store', 'b.jsonl'), line(2));  // hidden itself, reached by a link
  fs.symlinkSync(path.join(zone, '_store', 'b.jsonl'), path.join(zone, 'b-link.jsonl'));
  fs.writeFileSync(path.join(outside, 'secret.jsonl'), line(3));
  fs.symlinkSync(path.join(outside, 'secret.jsonl'), path.join(zone, 'c-link.jsonl'));
  const config = writeConfig(dir, `[source]\nformat = "jsonl"\nuri = "${zone}"\n${TEXT_SOURCE}\n${MERGE}`);
  let run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /c-link\.jsonl: a symbolic link to \S*secret\.jsonl, outside the source uri \S+; left out/,
    run.stderr);
  assert.deepEqual([...scan(dir, 'raw.orders').rows.keys()].sort(), ['1', '2']);
  // Opting in takes it.
  const opted = writeConfig(dir, `[source]\nformat = "jsonl"\nuri = "${zone}"\nfollow_links_outside_uri = true\n${TEXT_SOURCE}\n${MERGE}`);
  run = runFloe(['run', opted, '--once']);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual([...scan(dir, 'raw.orders').rows.keys()].sort(), ['1', '2', '3']);
});

test('source tables whose names differ only in case wait with a message instead of merging into one table', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'case-'));
  const zone = path.join(dir, 'zone');
  for (const [folder, id] of [['orders', 1], ['ORDERS', 2], ['items', 3]]) {
    fs.mkdirSync(path.join(zone, folder), { recursive: true });
    fs.writeFileSync(path.join(zone, folder, 'a.jsonl'), `{"id": ${id}, "seq": ${id}, "op": "I"}\n`);
  }
  const source = `[source]\nformat = "jsonl"\nuri = "${zone}"\ntable_from_path = "{table}/**"\nsettle = "0s"\n` +
    `infer_column_types = true\n` +
    `[target]\nnamespace = "raw"\n${MERGE}`;
  let run = runFloe(['run', writeConfig(dir, source), '--once']);
  assert.notEqual(run.status, 0, run.stderr);
  assert.match(run.stderr, /table ORDERS: source tables ORDERS and orders would all write raw\.orders/, run.stderr);
  assert.match(run.stderr, /target_table/);
  assert.deepEqual([...scan(dir, 'raw.items').rows.keys()], ['3']);  // the other tables go on
  // Given its own target, each lands.
  run = runFloe(['run', writeConfig(dir, `${source}\n[tables.ORDERS]\ntarget_table = "orders_upper"`), '--once']);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual([...scan(dir, 'raw.orders').rows.keys()], ['1']);
  assert.deepEqual([...scan(dir, 'raw.orders_upper').rows.keys()], ['2']);
});
