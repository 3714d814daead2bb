// Three independent Parquet readers behind one shape, for comparing the
// contents of two Parquet files (typically floe's input and output).
//
// Contract: readWithHyparquet / readWithParquetWasm return
// {reader, columns: [name], types: [string], cells: [[string]]}, where
// cells[c][r] is a canonical JSON text of the value at column c, row r as that
// reader decodes it (see canonical()). Two files hold the same data for a
// reader when their canonical cells are equal; values are never compared
// across readers, so each reader's own lossy conversions (hyparquet decimals
// as doubles, millisecond Dates) apply to both sides alike.
// DuckDB comparisons run in SQL (compareWithDuckDB) and report the same
// {column, row, expected, actual} mismatch records as compareCells.
import fs from 'node:fs';

import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC, Type } from 'apache-arrow';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { readParquet } from 'parquet-wasm';

// A JSON-able form of any value the three readers produce, keeping what
// JSON would lose: bigint, NaN, ±Infinity, -0, bytes, Dates, Maps.
export function canonical(value) {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'bigint':
      return { bigint: value.toString() };
    case 'number':
      if (Number.isNaN(value)) return { number: 'NaN' };
      if (Object.is(value, -0)) return { number: '-0' };
      if (!Number.isFinite(value)) return { number: value > 0 ? 'Infinity' : '-Infinity' };
      return value;
    case 'string':
    case 'boolean':
      return value;
    default:
      break;
  }
  if (value instanceof Date) return { date: value.getTime() };
  if (value instanceof Map) return { map: [...value.entries()].map(([k, v]) => [canonical(k), canonical(v)]) };
  if (Array.isArray(value)) return value.map(canonical);
  // Arrow values (StructRow, MapRow, Vector, DecimalBigNum) know their JSON form.
  if (typeof value.toJSON === 'function') return canonical(value.toJSON());
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('hex') };
  if (ArrayBuffer.isView(value)) return Array.from(value, canonical);
  if (typeof value === 'object') {
    const out = {};
    for (const key of Object.keys(value)) out[key] = canonical(value[key]);
    return out;
  }
  return String(value);
}

const cellText = (value) => JSON.stringify(canonical(value));

// hyparquet-compressors 1.1.2 throws "lz4 offset out of range 0" on the
// one-byte LZ4 block (0x00) that encodes zero bytes, which valid files carry
// for empty pages (e.g. the empty dictionary page of an all-null chunk).
// Decode that block ourselves and leave everything else to the library.
const hyparquetCompressors = {
  ...compressors,
  LZ4_RAW: (input, outputLength) =>
    input.length === 1 && input[0] === 0 && outputLength === 0
      ? new Uint8Array(0)
      : compressors.LZ4_RAW(input, outputLength),
};

// hyparquet: pure JavaScript. utf8: false keeps un-annotated BYTE_ARRAY as
// bytes, so a lost STRING annotation shows up as a difference. Its `types`
// are each column's schema subtree as names and repetitions (annotations are
// checked through DuckDB, which normalizes logical vs converted types).
export async function readWithHyparquet(path) {
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file);
  const topLevel = topLevelSubtrees(metadata.schema);
  const columns = topLevel.map((subtree) => subtree[0].name);
  const types = topLevel.map((subtree) => subtree.map((e) => `${e.name}:${e.repetition_type}`).join(' '));
  const rows = await parquetReadObjects({ file, metadata, compressors: hyparquetCompressors, utf8: false });
  const cells = columns.map((name) => rows.map((row) => cellText(row[name])));
  return { reader: 'hyparquet', columns, types, cells };
}

// The flattened schema (root first) split into one element list per
// top-level column.
function topLevelSubtrees(schema) {
  const elements = schema.slice(1);
  const subtrees = [];
  for (let i = 0; i < elements.length; ) {
    let end = i;
    let pending = 1;
    while (pending > 0 && end < elements.length) {
      pending += Number(elements[end].num_children ?? 0) - 1;
      end++;
    }
    subtrees.push(elements.slice(i, end));
    i = end;
  }
  return subtrees;
}

// parquet-wasm: arrow-rs's reader compiled to WebAssembly, read into
// apache-arrow. Top-level timestamps are read as raw integers so nanosecond
// precision is compared too.
export function readWithParquetWasm(path) {
  const bytes = new Uint8Array(fs.readFileSync(path));
  const table = tableFromIPC(readParquet(bytes).intoIPCStream());
  const columns = table.schema.fields.map((f) => f.name);
  const types = table.schema.fields.map((f) => String(f.type));
  const cells = table.schema.fields.map((field) => {
    const vector = table.getChild(field.name);
    if (field.type.typeId === Type.Timestamp) return rawInt64Cells(vector);
    const out = new Array(vector.length);
    for (let r = 0; r < vector.length; r++) out[r] = cellText(vector.get(r));
    return out;
  });
  return { reader: 'parquet-wasm', columns, types, cells };
}

function rawInt64Cells(vector) {
  const out = [];
  for (const data of vector.data) {
    for (let r = 0; r < data.length; r++) {
      out.push(data.getValid(r) ? cellText(data.values[data.offset + r]) : 'null');
    }
  }
  return out;
}

const clip = (text, limit = 160) => (text.length > limit ? `${text.slice(0, limit)}… (${text.length} chars)` : text);

// Compares two reads by the same reader: returns a list of mismatch strings
// naming reader, column, row and both values (at most `limit` per column).
export function compareCells(expected, actual, { limit = 3 } = {}) {
  const problems = [];
  const reader = expected.reader;
  if (JSON.stringify(expected.columns) !== JSON.stringify(actual.columns)) {
    problems.push(`${reader}: columns differ: expected ${JSON.stringify(expected.columns)}, actual ${JSON.stringify(actual.columns)}`);
    return problems;
  }
  expected.columns.forEach((column, c) => {
    if (expected.types[c] !== actual.types[c]) {
      problems.push(`${reader}: column ${column}: type differs: expected ${expected.types[c]}, actual ${actual.types[c]}`);
    }
    const want = expected.cells[c];
    const got = actual.cells[c];
    if (want.length !== got.length) {
      problems.push(`${reader}: column ${column}: ${got.length} rows, expected ${want.length}`);
      return;
    }
    let reported = 0;
    let differing = 0;
    for (let r = 0; r < want.length; r++) {
      if (want[r] === got[r]) continue;
      differing++;
      if (reported++ < limit) {
        problems.push(`${reader}: column ${column}, row ${r}: expected ${clip(want[r])}, actual ${clip(got[r])}`);
      }
    }
    if (differing > limit) problems.push(`${reader}: column ${column}: ${differing} rows differ in total`);
  });
  return problems;
}

// A DuckDB connection with one thread (reproducible random data, file-order
// scans) and UTC as the session time zone.
export async function openDuckDB() {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
  const all = async (sql) => (await connection.runAndReadAll(sql)).getRowObjectsJS();
  return {
    connection,
    all,
    close: () => {
      connection.closeSync?.();
      instance.closeSync?.();
    },
  };
}

export const sqlString = (s) => `'${String(s).replace(/'/g, "''")}'`;
const ident = (name) => `"${name.replace(/"/g, '""')}"`;

// Compares two files through DuckDB: column names and types, row count,
// EXCEPT ALL both ways, and per column/row the VARCHAR rendering of each
// value (which tells -0.0 from 0.0 and shows NaN). Returns mismatch strings.
export async function compareWithDuckDB(db, expectedPath, actualPath, { limit = 3 } = {}) {
  const problems = [];
  const describe = async (path) => db.all(`DESCRIBE SELECT * FROM read_parquet(${sqlString(path)})`);
  const want = await describe(expectedPath);
  const got = await describe(actualPath);
  const schemaText = (rows) => rows.map((r) => `${r.column_name} ${r.column_type}`);
  if (JSON.stringify(schemaText(want)) !== JSON.stringify(schemaText(got))) {
    const wantText = schemaText(want);
    const gotText = schemaText(got);
    for (let i = 0; i < Math.max(wantText.length, gotText.length); i++) {
      if (wantText[i] !== gotText[i]) {
        problems.push(`duckdb: column #${i}: expected ${wantText[i] ?? '(none)'}, actual ${gotText[i] ?? '(none)'}`);
      }
    }
    return problems;
  }
  const count = async (path) => (await db.all(`SELECT count(*) AS n FROM read_parquet(${sqlString(path)})`))[0].n;
  const wantRows = await count(expectedPath);
  const gotRows = await count(actualPath);
  if (wantRows !== gotRows) {
    problems.push(`duckdb: ${gotRows} rows, expected ${wantRows}`);
    return problems;
  }
  const except = async (a, b) =>
    (await db.all(`SELECT count(*) AS n FROM (SELECT * FROM read_parquet(${sqlString(a)}) ` +
      `EXCEPT ALL SELECT * FROM read_parquet(${sqlString(b)}))`))[0].n;
  const missing = await except(expectedPath, actualPath);
  const extra = await except(actualPath, expectedPath);
  if (missing !== 0n) problems.push(`duckdb: ${missing} input rows missing from the output (EXCEPT ALL)`);
  if (extra !== 0n) problems.push(`duckdb: ${extra} output rows not in the input (EXCEPT ALL)`);

  const columns = want.map((r) => r.column_name);
  const differs = (c) => `CAST(a.${ident(c)} AS VARCHAR) IS DISTINCT FROM CAST(b.${ident(c)} AS VARCHAR)`;
  const joined = `read_parquet(${sqlString(expectedPath)}, file_row_number = true) a ` +
    `JOIN read_parquet(${sqlString(actualPath)}, file_row_number = true) b USING (file_row_number)`;
  const counts = (await db.all(
    `SELECT ${columns.map((c, i) => `count_if(${differs(c)}) AS d${i}`).join(', ')} FROM ${joined}`))[0];
  for (let i = 0; i < columns.length; i++) {
    const n = counts[`d${i}`];
    if (n === 0n) continue;
    const c = columns[i];
    const examples = await db.all(
      `SELECT file_row_number AS row, CAST(a.${ident(c)} AS VARCHAR) AS expected, ` +
      `CAST(b.${ident(c)} AS VARCHAR) AS actual FROM ${joined} WHERE ${differs(c)} ORDER BY 1 LIMIT ${limit}`);
    for (const e of examples) {
      problems.push(`duckdb: column ${c}, row ${e.row}: expected ${clip(String(e.expected))}, actual ${clip(String(e.actual))}`);
    }
    if (n > BigInt(limit)) problems.push(`duckdb: column ${c}: ${n} rows differ in total`);
  }
  return problems;
}

// The time unit a Parquet schema element carries, from its logical type or
// its legacy converted type.
function timeUnit(element) {
  const logical = element.logical_type ?? '';
  for (const unit of ['MILLIS', 'MICROS', 'NANOS']) {
    if (new RegExp(`${unit}=(?!<null>)`).test(logical)) return unit;
  }
  const converted = element.converted_type ?? '';
  const match = /_(MILLIS|MICROS)$/.exec(converted);
  return match ? match[1] : '';
}

// The annotation family of a schema element, whether written as a logical
// type or a converted type (writers may legitimately pick either or both).
// Integer annotations are left out: duckdb_type already gives width and
// signedness, and a plain INT32/INT64 needs no annotation.
function annotation(element) {
  const logical = element.logical_type ?? '';
  const family = /^([A-Za-z]+?)Type\(/.exec(logical);
  let name = family ? family[1].toUpperCase() : '';
  if (!name) {
    const converted = element.converted_type ?? '';
    name = {
      UTF8: 'STRING', ENUM: 'ENUM', DECIMAL: 'DECIMAL', DATE: 'DATE', TIME_MILLIS: 'TIME', TIME_MICROS: 'TIME',
      TIMESTAMP_MILLIS: 'TIMESTAMP', TIMESTAMP_MICROS: 'TIMESTAMP', LIST: 'LIST', MAP: 'MAP', MAP_KEY_VALUE: 'MAP',
      JSON: 'JSON', BSON: 'BSON', INTERVAL: 'INTERVAL',
    }[converted] ?? '';
  }
  return name === 'INT' ? '' : name;
}

// DuckDB's parquet_schema() rows reduced to what a converter must keep:
// names, nesting, repetition, resolved DuckDB type, annotation family, time
// unit, decimal precision/scale. The physical type is informative only.
export async function parquetSchemaSummary(db, path) {
  const rows = await db.all(`SELECT * FROM parquet_schema(${sqlString(path)})`);
  // The root's name and repetition carry no meaning; only its children count.
  return rows.map((e, i) => ({
    key: i === 0 ? `(root)|${e.num_children}` : [e.name, e.repetition_type, e.num_children ?? '', e.duckdb_type ?? '', annotation(e), timeUnit(e),
      e.precision ?? '', e.scale ?? ''].join('|'),
    physical: e.type ?? '',
  }));
}

// Column chunk codecs and row group sizes from DuckDB's parquet_metadata().
export async function parquetLayout(db, path) {
  const rows = await db.all(
    `SELECT row_group_id, row_group_num_rows, path_in_schema, compression, total_compressed_size, ` +
    `data_page_offset, dictionary_page_offset, ` +
    `total_uncompressed_size FROM parquet_metadata(${sqlString(path)})`);
  const rowGroups = new Map();
  for (const r of rows) rowGroups.set(r.row_group_id, Number(r.row_group_num_rows));
  return {
    codecs: [...new Set(rows.map((r) => r.compression))],
    rowGroupRows: [...rowGroups.values()],
    chunks: rows,
  };
}
