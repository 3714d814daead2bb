// Interop: `floe file cat` reads JSON lines, JSON arrays and CSV written by
// other tools (DuckDB's COPY, Python's csv and json modules) and yields what
// they meant: DuckDB reads floe's output back with the source table's column
// types and it must equal, EXCEPT ALL both ways, both the source table and
// DuckDB's own read_csv / read_json of the same files. Also: inference of
// every type, gzip input, and bad rows rescued with their line numbers (or
// failing with file and line).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { openDuckDB, sqlString } from '../tools/readers.mjs';

const FLOE = process.env.FLOE_BIN;

function floe(...args) {
  return execFileSync(FLOE, args, { encoding: 'utf8', maxBuffer: 256 << 20 });
}

function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'floe-formats-'));
}

// The DuckDB column spec {'name': 'TYPE', ...} of a query.
async function columnsOf(db, sql) {
  const rows = await db.all(`DESCRIBE ${sql}`);
  return '{' + rows.map((r) => `${sqlString(r.column_name)}: ${sqlString(r.column_type)}`).join(', ') + '}';
}

// Rows of `a` not in `b` and of `b` not in `a` (EXCEPT ALL), as JSON text.
async function difference(db, a, b) {
  const left = await db.all(`SELECT * FROM (${a}) EXCEPT ALL SELECT * FROM (${b})`);
  const right = await db.all(`SELECT * FROM (${b}) EXCEPT ALL SELECT * FROM (${a})`);
  const show = (rows) => rows.slice(0, 3).map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? `${v}` : v)));
  return { missing: left.length, extra: right.length, samples: [...show(left), ...show(right)] };
}

async function assertSameRows(db, expected, actual, what) {
  const d = await difference(db, expected, actual);
  assert.equal(d.missing + d.extra, 0, `${what}: ${d.missing} rows missing, ${d.extra} extra: ${d.samples.join(' | ')}`);
}

// The table DuckDB writes: every type floe infers, nulls, quotes, line breaks, UTF-8.
const SOURCE_TABLE = `
  SELECT
    i::BIGINT AS id,
    (i * 1000003 - 5000000)::BIGINT AS big,
    CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 12.34 - 600)::DECIMAL(12,2) END AS amount,
    i * 0.37 + 1e-3 AS ratio,
    CASE WHEN i % 9 = 0 THEN NULL ELSE i % 2 = 0 END AS flag,
    DATE '2020-01-01' + i::INTEGER AS day,
    TIMESTAMP '2021-03-04 05:06:07.123456' + to_hours(i) AS at,
    CASE WHEN i % 6 = 0 THEN NULL ELSE TIMESTAMPTZ '2021-03-04 05:06:07.5+00' + to_minutes(i * 7) END AS at_tz,
    CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN 'plain' WHEN 2 THEN 'comma, "quote" and '';'''
      WHEN 3 THEN 'line1' || chr(10) || 'line2' || chr(13) || chr(10) || 'line3' ELSE 'ünïcødé ✓ 日本 🚀' END AS note,
    CASE WHEN i % 4 = 0 THEN '' ELSE 'x' || i END AS maybe_empty
  FROM range(300) t(i)`;

test('DuckDB-written CSV and JSON lines read as DuckDB reads them, every type inferred', async () => {
  const dir = tempDir();
  const db = await openDuckDB();
  try {
    await db.connection.run(`CREATE TABLE t AS ${SOURCE_TABLE}`);
    const csv = path.join(dir, 'x.csv');
    const jsonl = path.join(dir, 'x.jsonl');
    await db.connection.run(`COPY t TO ${sqlString(csv)} (FORMAT csv, HEADER)`);
    await db.connection.run(`COPY t TO ${sqlString(jsonl)} (FORMAT json)`);
    const columns = await columnsOf(db, 'SELECT * FROM t');

    // Inference: the types floe finds in DuckDB's files.
    const csvSchema = floe('file', 'schema', csv);
    for (const line of ['id: int64', 'big: int64', 'amount: decimal(38,2)', 'ratio: float64', 'flag: bool',
      'day: date', 'at: timestamp[us]', 'at_tz: timestamp[us, utc]', 'note: string', 'maybe_empty: string',
      "delimiter ',', quote '\"', escape '\"', header true"]) {
      assert.ok(csvSchema.includes(line), `csv schema lacks "${line}":\n${csvSchema}`);
    }
    const jsonSchema = floe('file', 'schema', jsonl);
    for (const line of ['id: int64', 'amount: float64', 'ratio: float64', 'flag: bool', 'day: date',
      'at: timestamp[us]', 'at_tz: timestamp[us, utc]', 'note: string']) {
      assert.ok(jsonSchema.includes(line), `json schema lacks "${line}":\n${jsonSchema}`);
    }

    for (const [name, file, duck] of [
      ['csv', csv, `read_csv(${sqlString(csv)}, header = true, auto_detect = false, columns = ${columns}, allow_quoted_nulls = false)`],
      ['jsonl', jsonl, `read_json(${sqlString(jsonl)}, format = 'newline_delimited', columns = ${columns})`],
    ]) {
      const out = path.join(dir, `${name}.out.jsonl`);
      fs.writeFileSync(out, floe('file', 'cat', file));
      const floeRows = `SELECT * FROM read_json(${sqlString(out)}, format = 'newline_delimited', columns = ${columns})`;
      const count = (await db.all(`SELECT count(*)::INTEGER AS n FROM (${floeRows})`))[0].n;
      assert.equal(count, 300, name);
      await assertSameRows(db, 'SELECT * FROM t', floeRows, `${name}: floe vs the source table`);
      await assertSameRows(db, `SELECT * FROM ${duck}`, floeRows, `${name}: floe vs DuckDB's reader`);
    }

    // The same file gzip-compressed (magic bytes, no help from the name) prints the same rows.
    const gz = path.join(dir, 'x-compressed');
    fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(jsonl)));
    assert.equal(floe('file', 'cat', gz), fs.readFileSync(path.join(dir, 'jsonl.out.jsonl'), 'utf8'));
    // CSV output of floe is read back by DuckDB's CSV reader as the same rows
    // (but for empty strings: floe's CSV writer prints null and '' alike as
    // an empty field, columnar/json_format.h).
    const csvOut = path.join(dir, 'out.csv');
    fs.writeFileSync(csvOut, floe('file', 'cat', csv, '--format', 'csv'));
    await assertSameRows(db, 'SELECT * EXCLUDE (maybe_empty) FROM t',
      `SELECT * EXCLUDE (maybe_empty) FROM read_csv(${sqlString(csvOut)}, header = true, auto_detect = false, columns = ${columns})`,
      'floe csv output');
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('Python csv and json modules: strings exact, nested JSON as DuckDB reads it', async () => {
  const dir = tempDir();
  const db = await openDuckDB();
  try {
    const script = `
import csv, json, sys
d = sys.argv[1]
rows = [["name", "text", "n"]]
for i in range(120):
    rows.append(["row%d" % i, ['', 'a,b', 'say "hi"', 'two\\nlines', 'crlf\\r\\nend', 'caf\\u00e9 \\u2603', ' padded '][i % 7], str(i * 3)])
with open(d + "/py.csv", "w", newline="", encoding="utf-8") as f:
    csv.writer(f).writerows(rows)
objs = []
for i in range(150):
    o = {"id": i, "big": 2**60 + i, "f": i / 8, "ok": i % 3 == 0, "s": "q\\"\\\\\\u00fc\\t" + str(i),
         "nested": {"a": i, "b": [i, i + 1], "c": {"deep": "x" * (i % 3)}}, "tags": ["t%d" % k for k in range(i % 4)],
         "maybe": None if i % 5 == 0 else i}
    objs.append(o)
with open(d + "/py.jsonl", "w") as f:
    for o in objs: f.write(json.dumps(o) + "\\n")
with open(d + "/py.json", "w") as f:
    json.dump(objs, f, indent=2)
with open(d + "/py-rows.json", "w") as f:
    json.dump(rows, f)
`;
    execFileSync('python3', ['-c', script, dir]);
    // CSV, every field a string: exactly what csv.reader read back.
    const expected = JSON.parse(fs.readFileSync(path.join(dir, 'py-rows.json'), 'utf8'));
    const printed = floe('file', 'cat', path.join(dir, 'py.csv'), '--infer-column-types', 'false', '--null-string', '\\N')
      .split('\n').filter((l) => l).map((l) => JSON.parse(l));
    assert.equal(printed.length, expected.length - 1);
    printed.forEach((row, i) => assert.deepEqual(Object.values(row), expected[i + 1], `csv row ${i}`));
    assert.deepEqual(Object.keys(printed[0]), expected[0]);

    // JSON lines and the indented array: floe equals DuckDB's reading of the same file.
    for (const [name, format] of [['py.jsonl', 'newline_delimited'], ['py.json', 'array']]) {
      const file = path.join(dir, name);
      const duck = `read_json(${sqlString(file)}, format = '${format}', sample_size = -1)`;
      const columns = await columnsOf(db, `SELECT * FROM ${duck}`);
      const out = path.join(dir, `${name}.out.jsonl`);
      fs.writeFileSync(out, floe('file', 'cat', file));
      await assertSameRows(db, `SELECT * FROM ${duck}`,
        `SELECT * FROM read_json(${sqlString(out)}, format = 'newline_delimited', columns = ${columns})`, name);
    }
    const schema = floe('file', 'schema', path.join(dir, 'py.json'));
    assert.ok(schema.includes('strip_outer_array'), schema);
    assert.ok(schema.includes('nested: struct<a: int64, b: list<int64>, c: struct<deep: string>>'), schema);
    assert.ok(schema.includes('tags: list<string>'), schema);
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('bad rows land in _rescued_data with their lines, or fail naming file and line', () => {
  const dir = tempDir();
  try {
    const csv = path.join(dir, 'bad.csv');
    fs.writeFileSync(csv, Buffer.concat([
      Buffer.from('id,amount\n1,1.50\n2,2.25,extra\n3,x\n'),
      Buffer.from([0x34, 0x2c, 0xff, 0x0a]), // 4,<invalid UTF-8>
      Buffer.from('5,5.75\n6,"never closed\n'),
    ]));
    const rows = floe('file', 'cat', csv, '--schema-hints', 'id BIGINT, amount DECIMAL(10,2)')
      .split('\n').filter((l) => l).map((l) => JSON.parse(l));
    assert.equal(rows.length, 6);
    const rescued = rows.map((r) => (r._rescued_data ? JSON.parse(r._rescued_data) : null));
    assert.deepEqual(rows[0], { id: 1, amount: '1.50', _rescued_data: null });
    assert.equal(rescued[1]._raw, '2,2.25,extra');
    assert.equal(rescued[1]._error, 'expected 2 fields, found 3');
    assert.equal(rescued[1]._line, 3);
    assert.equal(rescued[1]._file_path, csv);
    assert.deepEqual(rows[2].id, 3);
    assert.equal(rescued[2].amount, 'x');
    assert.equal(rescued[2]._line, 4);
    assert.match(rescued[3]._error, /invalid UTF-8/);
    assert.equal(rescued[3]._line, 5);
    assert.deepEqual(rows[4], { id: 5, amount: '5.75', _rescued_data: null });
    assert.equal(rescued[5]._error, 'unterminated quote');
    assert.equal(rescued[5]._line, 7);

    const failed = spawnSync(FLOE, ['file', 'cat', csv, '--on-bad-record', 'fail'], { encoding: 'utf8' });
    assert.equal(failed.status, 1);
    assert.match(failed.stderr, new RegExp(`${csv.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: line 3: expected 2 fields, found 3`));

    const jsonl = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(jsonl, '{"a": 1}\n{"a": 2,\n{"a": "three"}\n');
    const json = floe('file', 'cat', jsonl, '--schema-hints', 'a INT').split('\n').filter((l) => l).map((l) => JSON.parse(l));
    assert.equal(json.length, 3);
    assert.equal(JSON.parse(json[1]._rescued_data)._raw, '{"a": 2,');
    assert.equal(JSON.parse(json[1]._rescued_data)._line, 2);
    assert.deepEqual(JSON.parse(json[2]._rescued_data), { a: 'three', _file_path: jsonl, _line: 3 });
    const jsonFailed = spawnSync(FLOE, ['file', 'cat', jsonl, '--on-bad-record', 'fail'], { encoding: 'utf8' });
    assert.equal(jsonFailed.status, 1);
    assert.match(jsonFailed.stderr, /bad\.jsonl: line 2, byte \d+: /);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('floe parquet cat still prints every row, as floe file cat does', async () => {
  const dir = tempDir();
  const db = await openDuckDB();
  try {
    const file = path.join(dir, 'x.parquet');
    await db.connection.run(`COPY (${SOURCE_TABLE}) TO ${sqlString(file)} (FORMAT parquet)`);
    const viaParquet = floe('parquet', 'cat', file, '--columns', 'id,note,at_tz');
    assert.equal(viaParquet, floe('file', 'cat', file, '--columns', 'id,note,at_tz'));
    assert.equal(viaParquet.split('\n').filter((l) => l).length, 300);
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
