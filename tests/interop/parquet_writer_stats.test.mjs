// What floe's Parquet writer declares must be what independent readers see:
// DuckDB's parquet_metadata()/parquet_schema() report the statistics
// (unsigned order, NaN excluded, signed zeros, FLBA decimals, strings with
// bytes >= 0x80, null counts), logical types, field ids and encodings floe
// wrote; DuckDB, hyparquet and parquet-wasm read the same values back.
//
// Env: FLOE_BIN (required). FLOE_KEEP_TEMP=1 keeps the work directory.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';

import { compareCells, readWithHyparquet, readWithParquetWasm } from '../tools/readers.mjs';
import { DuckDBInstance } from '@duckdb/node-api';

const run = promisify(execFile);
const FLOE_BIN = process.env.FLOE_BIN;

let workDir;
let conn;
let instance;

const query = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson();
const q = (p) => `'${p.replace(/'/g, "''")}'`;

const FIELD_IDS = `{i32: 1, i64: 2, u8: 3, u32: 4, u64: 5, d: 6, zero: 7, nan_only: 8, f: 9, dec: 10, dec9: 11,
  s: 12, b: 13, dt: 14, ts: 15, tstz: 16, l: {__duckdb_field_id: 17, element: 18},
  st: {__duckdb_field_id: 19, a: 20, b: 21}, m: {__duckdb_field_id: 22, key: 23, value: 24}}`;

// 300 rows; low-cardinality columns, so dictionaries apply by default.
const INPUT_SQL = `SELECT
  (i % 40 - 20)::INTEGER AS i32,
  CASE WHEN i % 9 = 0 THEN NULL ELSE (i % 25) * -1000000000000 END::BIGINT AS i64,
  (i % 50 * 5)::UTINYINT AS u8,
  (4294967295 - i % 30)::UINTEGER AS u32,
  (18446744073709551615 - i % 20)::UBIGINT AS u64,
  CASE WHEN i % 5 = 0 THEN 'nan'::DOUBLE ELSE (i % 30 - 15) / 4.0 END AS d,
  CASE WHEN i % 2 = 0 THEN 0.0::DOUBLE ELSE (i % 7)::DOUBLE END AS zero,
  'nan'::DOUBLE AS nan_only,
  CASE WHEN i % 3 = 0 THEN -0.0::FLOAT ELSE -(i % 11)::FLOAT END AS f,
  ((i % 60 - 30) * 1234.567)::DECIMAL(22, 3) AS dec,
  ((i % 60 - 30) * 12.5)::DECIMAL(9, 2) AS dec9,
  CASE WHEN i % 4 = 0 THEN NULL WHEN i % 4 = 1 THEN 'ÿ' || (i % 13)::VARCHAR ELSE 'a' || (i % 17)::VARCHAR END AS s,
  ('\\x' || lpad(to_hex(i % 256), 2, '0'))::BLOB AS b,
  DATE '2021-03-01' + (i % 100)::INTEGER AS dt,
  TIMESTAMP '2020-01-01 00:00:00' + to_seconds(i * 3600) AS ts,
  TIMESTAMPTZ '2020-01-01 00:00:00+00' + to_microseconds(i * 7) AS tstz,
  CASE WHEN i % 6 = 0 THEN NULL ELSE [i % 10, NULL, i % 3] END AS l,
  {'a': i % 8, 'b': 'x' || (i % 2)::VARCHAR} AS st,
  MAP {'k' || (i % 3)::VARCHAR: i % 5} AS m
FROM range(300) t(i)`;

const FLAT_WITH_SQL_MIN = ['i32', 'i64', 'u8', 'u32', 'u64', 'dec', 'dec9', 's', 'dt'];

before(async () => {
  assert.ok(FLOE_BIN, 'FLOE_BIN must name the floe binary');
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-writer-stats-'));
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
  await conn.run(`SET TimeZone = 'UTC'`);
  await conn.run(`COPY (${INPUT_SQL}) TO ${q(path.join(workDir, 'in.parquet'))} (FORMAT parquet, FIELD_IDS ${FIELD_IDS})`);
});

after(() => {
  conn?.closeSync?.();
  if (process.env.FLOE_KEEP_TEMP === '1') console.log(`# parquet_writer_stats: files kept in ${workDir}`);
  else if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

async function convert(name, args) {
  const input = path.join(workDir, 'in.parquet');
  const output = path.join(workDir, `${name}.parquet`);
  await run(FLOE_BIN, ['parquet', 'convert', input, output, ...args]);
  return output;
}

async function metadataByColumn(file) {
  const rows = await query(`SELECT path_in_schema, stats_min_value, stats_max_value, stats_null_count, encodings,
    compression FROM parquet_metadata(${q(file)}) ORDER BY row_group_id, column_id`);
  const byColumn = new Map();
  for (const row of rows) {
    if (!byColumn.has(row.path_in_schema)) byColumn.set(row.path_in_schema, []);
    byColumn.get(row.path_in_schema).push(row);
  }
  return byColumn;
}

async function assertSameRows(input, output) {
  const [{ missing, extra, n_in, n_out }] = await query(`SELECT
      (SELECT count(*) FROM (SELECT * FROM read_parquet(${q(input)}) EXCEPT ALL SELECT * FROM read_parquet(${q(output)}))) AS missing,
      (SELECT count(*) FROM (SELECT * FROM read_parquet(${q(output)}) EXCEPT ALL SELECT * FROM read_parquet(${q(input)}))) AS extra,
      (SELECT count(*) FROM read_parquet(${q(input)})) AS n_in,
      (SELECT count(*) FROM read_parquet(${q(output)})) AS n_out`);
  assert.equal(n_out, n_in);
  assert.equal(missing, '0', `rows of the input missing from ${output}`);
  assert.equal(extra, '0', `rows in ${output} not in the input`);
}

const VARIANTS = {
  default: [],
  v2_zstd_plain: ['--page-version', '2', '--codec', 'zstd', '--no-dictionary'],
  delta_small_pages: ['--no-dictionary', '--delta', '--page-bytes', '512', '--row-group-rows', '70'],
  fallback_gzip: ['--codec', 'gzip', '--page-bytes', '300', '--page-version', '2'],
};

for (const [name, args] of Object.entries(VARIANTS)) {
  test(`${name}: statistics match the data, per row group`, async () => {
    const output = await convert(name, args);
    await assertSameRows(path.join(workDir, 'in.parquet'), output);
    const meta = await metadataByColumn(output);
    const input = q(path.join(workDir, 'in.parquet'));
    const groupRows = name === 'delta_small_pages' ? 70 : 300;
    for (const column of FLAT_WITH_SQL_MIN) {
      const chunks = meta.get(column);
      assert.ok(chunks, `no column chunk for ${column}`);
      for (let g = 0; g < chunks.length; g++) {
        const [expected] = await query(`SELECT min(${column})::VARCHAR AS lo, max(${column})::VARCHAR AS hi,
            (count(*) - count(${column}))::VARCHAR AS nulls
          FROM (SELECT ${column} FROM read_parquet(${input}) LIMIT ${groupRows} OFFSET ${g * groupRows})`);
        const chunk = chunks[g];
        assert.equal(chunk.stats_min_value, expected.lo, `${column} row group ${g}: min`);
        assert.equal(chunk.stats_max_value, expected.hi, `${column} row group ${g}: max`);
        assert.equal(chunk.stats_null_count, expected.nulls, `${column} row group ${g}: null count`);
      }
    }
    // Floats: NaN never becomes min/max; a zero minimum is -0.0, a zero maximum +0.0.
    const first = (column) => meta.get(column)[0];
    if (name !== 'delta_small_pages') {
      assert.equal(first('d').stats_min_value, '-3.5');  // i % 30 == 0 rows are NaN
      assert.equal(first('d').stats_max_value, '3.5');
      assert.equal(first('zero').stats_min_value, '-0.0');
      assert.equal(first('zero').stats_max_value, '6.0');
      assert.equal(first('f').stats_min_value, '-10.0');
      assert.equal(first('f').stats_max_value, '0.0');
    }
    assert.equal(first('nan_only').stats_min_value, null);
    assert.equal(first('nan_only').stats_max_value, null);
  });
}

test('encodings follow the options', async () => {
  const encodingsOf = async (file) => {
    const meta = await metadataByColumn(file);
    return (column) => meta.get(column).map((c) => c.encodings).join(' | ');
  };
  const dict = await encodingsOf(await convert('enc-default', []));
  for (const column of ['i32', 's', 'dec', 'l, list, element']) {
    assert.match(dict(column), /RLE_DICTIONARY/, `${column} should be dictionary-encoded`);
  }
  const plain = await encodingsOf(await convert('enc-plain', ['--no-dictionary']));
  for (const column of ['i32', 's', 'dec']) {
    assert.doesNotMatch(plain(column), /DICTIONARY/, `${column} must not use a dictionary`);
    assert.match(plain(column), /PLAIN/);
  }
  const delta = await encodingsOf(await convert('enc-delta', ['--no-dictionary', '--delta']));
  assert.match(delta('i32'), /DELTA_BINARY_PACKED/);
  assert.match(delta('i64'), /DELTA_BINARY_PACKED/);
  assert.match(delta('s'), /DELTA_BYTE_ARRAY/);
  assert.match(delta('d'), /PLAIN/);
  // All-distinct columns drop the dictionary after the first page: it would cost more than PLAIN.
  assert.doesNotMatch(dict('ts'), /DICTIONARY/);
  assert.doesNotMatch(dict('tstz'), /DICTIONARY/);
});

test('schema: field ids, repetition and logical types are kept', async () => {
  const input = path.join(workDir, 'in.parquet');
  const output = await convert('schema', ['--codec', 'none']);
  const schemaOf = async (file) =>
    query(`SELECT name, type, type_length, repetition_type, field_id, logical_type
           FROM parquet_schema(${q(file)}) WHERE name <> 'duckdb_schema' AND name <> 'schema'`);
  const expected = await schemaOf(input);
  const actual = await schemaOf(output);
  assert.deepEqual(actual.map((e) => `${e.name}#${e.field_id}`), expected.map((e) => `${e.name}#${e.field_id}`));
  const byName = Object.fromEntries(actual.map((e) => [e.name, e]));
  assert.match(byName.u8.logical_type, /isSigned=0/);
  assert.match(byName.u64.logical_type, /isSigned=0/);
  assert.equal(byName.u64.type, 'INT64');
  assert.match(byName.dec.logical_type, /DecimalType\(scale=3, precision=22\)/);
  assert.equal(byName.dec.type, 'FIXED_LEN_BYTE_ARRAY');
  assert.equal(byName.dec.type_length, '10');
  assert.equal(byName.dec9.type, 'INT32');
  assert.match(byName.ts.logical_type, /TimestampType\(isAdjustedToUTC=0/);
  assert.match(byName.tstz.logical_type, /TimestampType\(isAdjustedToUTC=1/);
  assert.match(byName.s.logical_type, /StringType/);
  assert.equal(byName.key.repetition_type, 'REQUIRED');
  const described = await query(`DESCRIBE SELECT * FROM read_parquet(${q(output)})`);
  const original = await query(`DESCRIBE SELECT * FROM read_parquet(${q(input)})`);
  assert.deepEqual(described.map((c) => `${c.column_name}:${c.column_type}`),
    original.map((c) => `${c.column_name}:${c.column_type}`));
});

test('hyparquet and parquet-wasm read what DuckDB wrote, unchanged', async () => {
  const input = path.join(workDir, 'in.parquet');
  for (const args of [[], ['--page-version', '2', '--codec', 'zstd', '--delta', '--no-dictionary']]) {
    const output = await convert(`readers-${args.length}`, args);
    for (const read of [readWithHyparquet, readWithParquetWasm]) {
      const expected = await read(input);
      const actual = await read(output);
      const problems = compareCells(expected, actual);
      assert.deepEqual(problems, [], `${expected.reader} on ${path.basename(output)}:\n${problems.join('\n')}`);
    }
  }
});
