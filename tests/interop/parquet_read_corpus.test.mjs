// Conformance of floe's Parquet reader over the whole parquet-testing corpus.
//
// For every data/**/*.parquet file, `floe parquet cat --format jsonl` must
// print exactly what an independent reader sees. The oracle is DuckDB
// (@duckdb/node-api), compared value by value guided by DuckDB's column types
// and with integers compared as BigInt. Where DuckDB cannot read a file, the
// published *_expect.csv is the oracle when present, else hyparquet; each
// test says which oracle it used. Files floe must refuse (encryption,
// geospatial/variant types, pages whose CRC does not match) are asserted to
// fail with a clear message. bad_data/ files and truncated / bit-flipped
// variants of good files must fail cleanly: exit code 1, a message naming
// the file, no crash, no hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, DuckDBTypeId } from '@duckdb/node-api';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

const FLOE = process.env.FLOE_BIN;
const SOURCE = process.env.FLOE_SOURCE_DIR ?? path.resolve(import.meta.dirname, '../..');
const SHARED = process.env.FLOE_SHARED_DIR ?? path.join(SOURCE, '..', 'shared');
const CORPUS = path.join(SHARED, 'testdata', 'parquet-testing');
const DATA = path.join(CORPUS, 'data');
const BAD = path.join(CORPUS, 'bad_data');
const TIMEOUT_MS = 60_000;

// Files floe refuses on purpose, with the message it must give.
const EXPECTED_REFUSALS = [
  { match: (f) => f.endsWith('.parquet.encrypted'), message: /not supported: Parquet modular encryption/ },
  { match: (f) => f.startsWith('geospatial/'), message: /not supported: variant\/geospatial/ },
  // floe verifies page CRCs; DuckDB does not, so it reads these files.
  { match: (f) => /corrupt-checksum/.test(f), message: /page CRC mismatch/ },
];

function listCorpus() {
  const files = [];
  const walk = (dir, prefix) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name), prefix + entry.name + '/');
      else if (entry.name.endsWith('.parquet') || entry.name.endsWith('.parquet.encrypted')) files.push(prefix + entry.name);
    }
  };
  walk(DATA, '');
  // FLOE_CORPUS_FILTER (a regular expression) narrows the run while debugging.
  const filter = process.env.FLOE_CORPUS_FILTER ? new RegExp(process.env.FLOE_CORPUS_FILTER) : null;
  return filter ? files.filter((f) => filter.test(f)) : files;
}

// Files whose values exceed what a JS string can hold (V8 caps strings below
// 1 GiB). large_string_map.brotli.parquet holds maps of one entry whose key is
// a 1 GiB string: DuckDB reports each row's entry count, key length, key MD5
// and value (and that keys need no JSON escaping); floe's output is streamed
// from disk and each line checked against that without holding it in memory.
const HUGE_VALUE_FILES = {
  'large_string_map.brotli.parquet': (file) => `SELECT cardinality(arr) AS entries, length(map_keys(arr)[1]) AS key_length,
    md5(map_keys(arr)[1]) AS key_md5, map_values(arr)[1] AS value,
    regexp_full_match(map_keys(arr)[1], '[A-Za-z0-9]*') AS plain FROM read_parquet('${file}')`,
};

// Streams `file` line by line: each line must be {"arr":[{"key":"<key>","value":<v>}]}.
// Returns per line { keyLength, keyMd5, value } or a description of a mismatch.
function scanSingleEntryMapLines(file) {
  const prefix = Buffer.from('{"arr":[{"key":"');
  const fd = fs.openSync(file, 'r');
  const lines = [];
  const buffer = Buffer.alloc(1 << 24);
  let state = 'prefix'; let matched = 0; let hash; let keyLength = 0; let tail = [];
  try {
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      let i = 0;
      while (i < n) {
        if (state === 'prefix') {
          if (buffer[i] !== prefix[matched]) return `line ${lines.length + 1} does not start with ${prefix}`;
          i++;
          if (++matched === prefix.length) { state = 'key'; hash = crypto.createHash('md5'); keyLength = 0; }
        } else if (state === 'key') {
          let end = buffer.indexOf(34, i); // the closing quote
          if (end < 0 || end >= n) end = n;
          hash.update(buffer.subarray(i, end));
          keyLength += end - i;
          i = end;
          if (i < n) { state = 'tail'; tail = []; }
        } else {
          const nl = buffer.indexOf(10, i);
          const end = nl < 0 || nl >= n ? n : nl;
          tail.push(Buffer.from(buffer.subarray(i, end)));
          i = end;
          if (i < n) {
            i++;
            lines.push({ keyLength, keyMd5: hash.digest('hex'), tail: Buffer.concat(tail).toString() });
            state = 'prefix'; matched = 0;
          }
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return lines;
}

async function compareHugeFile(name, file, st) {
  st.diagnostic('oracle: duckdb (per-row key length, key MD5 and value; floe output streamed)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-huge-'));
  try {
    const outFile = path.join(dir, 'out.jsonl');
    const fd = fs.openSync(outFile, 'w');
    const r = spawnSync(FLOE, ['parquet', 'cat', '--format', 'jsonl', file], { timeout: 600_000, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
    fs.closeSync(fd);
    assert.equal(r.signal, null, `floe was killed by ${r.signal}`);
    assert.equal(r.status, 0, `floe failed: ${r.stderr}`);
    const lines = scanSingleEntryMapLines(outFile);
    assert.ok(Array.isArray(lines), lines);
    const con = await duck();
    const rows = (await con.runAndReadAll(HUGE_VALUE_FILES[name](file.replaceAll("'", "''")))).getRowObjectsJS();
    assert.equal(lines.length, rows.length, 'row count');
    for (let k = 0; k < rows.length; k++) {
      assert.ok(rows[k].plain && rows[k].entries === 1n, 'the file changed: extend this check');
      assert.equal(BigInt(lines[k].keyLength), rows[k].key_length, `row ${k} key length`);
      assert.equal(lines[k].keyMd5, rows[k].key_md5, `row ${k} key md5`);
      assert.equal(lines[k].tail, `","value":${rows[k].value ?? 'null'}}]}`, `row ${k} value`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Files whose published description is a better oracle than DuckDB.
// int96_from_spark.md lists the values as microseconds since the epoch;
// DuckDB 1.5 wraps INT96 values beyond the int64-nanosecond range (year 290000).
const DOCUMENTED_ORACLES = {
  // map_no_value.md: my_map holds {1,2,3}, {4,5,6}, {7,8,9} mapped to null; my_map_no_v (a MAP
  // without values) and my_list are the equivalent lists [1,2,3], [4,5,6], [7,8,9]. DuckDB refuses
  // the file and hyparquet reads the value-less map as a struct.
  'map_no_value.parquet': (rows) => {
    const md = fs.readFileSync(path.join(DATA, 'map_no_value.md'), 'utf8');
    assert.ok(md.includes('{1 -> null, 2 -> null, 3 -> null}') && md.includes('[7, 8, 9]'), 'map_no_value.md changed');
    const lists = [[1n, 2n, 3n], [4n, 5n, 6n], [7n, 8n, 9n]];
    const expected = lists.map((l) => ({ my_map: l.map((key) => ({ key, value: null })), my_map_no_v: l, my_list: l }));
    return show(rows) === show(expected) ? null : `floe ${show(rows)}, map_no_value.md ${show(expected)}`;
  },
  'int96_from_spark.parquet': (rows) => {
    const md = fs.readFileSync(path.join(DATA, 'int96_from_spark.md'), 'utf8');
    const block = /As microseconds since the epoch, they correspond to:\s*```\s*([^`]*)```/.exec(md);
    assert.ok(block, 'int96_from_spark.md no longer lists its values');
    const expected = block[1].trim().split(/,\s*/).map((v) => (v === 'null' ? null : BigInt(v)));
    if (rows.length !== expected.length) return `floe printed ${rows.length} rows, the .md lists ${expected.length}`;
    for (let r = 0; r < rows.length; r++) {
      const f = rows[r].a;
      const micros = f === null ? null : floorDiv(parseTimestamp(f).nanos, 1000n);
      if (micros !== expected[r]) return `row ${r}: floe ${f} (${micros} us), int96_from_spark.md ${expected[r]}`;
    }
    return null;
  },
};

function runFloe(args) {
  const r = spawnSync(FLOE, args, { timeout: TIMEOUT_MS, maxBuffer: 1 << 30, encoding: 'utf8' });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error };
}

// ---- JSON with exact integers ------------------------------------------------

// Parses JSON, returning integer literals as BigInt and other numbers as Number.
export function parseJsonExact(text) {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const fail = (what) => { throw new Error(`bad JSON at ${i}: ${what}: ${text.slice(i, i + 40)}`); };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++; const obj = {}; const keys = []; ws();
      if (text[i] === '}') { i++; return obj; }
      for (;;) {
        ws(); const k = string(); ws(); if (text[i++] !== ':') fail('expected :');
        obj[k] = value(); keys.push(k); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return obj; }
        fail('expected , or }');
      }
    }
    if (c === '[') {
      i++; const arr = []; ws();
      if (text[i] === ']') { i++; return arr; }
      for (;;) {
        arr.push(value()); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return arr; }
        fail('expected , or ]');
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail('unexpected token');
    i += m[0].length;
    return m[2] || m[3] ? Number(m[0]) : BigInt(m[0]);
  };
  const string = () => {
    if (text[i] !== '"') fail('expected string');
    let j = i + 1; let out = '';
    for (;;) {
      const k = text.indexOf('"', j);
      if (k < 0) fail('unterminated string');
      let backslashes = 0; for (let b = k - 1; b > i && text[b] === '\\'; b--) backslashes++;
      if (backslashes % 2 === 0) { out = JSON.parse(text.slice(i, k + 1)); i = k + 1; return out; }
      j = k + 1;
    }
  };
  const v = value(); ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}

// ---- floe text back to values ------------------------------------------------

const DAY_NS = 86_400_000_000_000n;

function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function parseDate(s) {
  const m = /^(-?\d{4,})-(\d\d)-(\d\d)$/.exec(s);
  assert.ok(m, `not a date: ${s}`);
  return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
}

// "HH:MM:SS.fff[fff[fff]]" to nanoseconds of the day.
function parseTimeNanos(s) {
  const m = /^(\d\d):(\d\d):(\d\d)\.(\d{3}|\d{6}|\d{9})$/.exec(s);
  assert.ok(m, `not a time: ${s}`);
  const frac = BigInt(m[4].padEnd(9, '0'));
  return (BigInt(m[1]) * 3600n + BigInt(m[2]) * 60n + BigInt(m[3])) * 1_000_000_000n + frac;
}

// Timestamp text to { nanos since epoch, utc }.
function parseTimestamp(s) {
  const m = /^(-?\d{4,}-\d\d-\d\d)T(\d\d:\d\d:\d\d\.\d+)(Z?)$/.exec(s);
  assert.ok(m, `not a timestamp: ${s}`);
  return { nanos: BigInt(parseDate(m[1])) * DAY_NS + parseTimeNanos(m[2]), utc: m[3] === 'Z' };
}

const floorDiv = (a, b) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

function hex(bytes) {
  return Buffer.from(bytes.buffer ?? bytes, bytes.byteOffset ?? 0, bytes.byteLength ?? bytes.length).toString('hex');
}

function floatFromFloe(v) {
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  assert.ok(typeof v === 'number' || typeof v === 'bigint', `expected a number, got ${show(v)}`);
  return Number(v);
}

function sameFloat(a, b, single) {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  return single ? Math.fround(a) === Math.fround(b) : Object.is(a, b) || a === b;
}

// ---- comparison against DuckDB, guided by its types --------------------------

function show(v) {
  return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x))?.slice(0, 300);
}

// Compares floe's parsed JSON value `f` with DuckDB value `d` of type `type`.
// Returns null when equal, else a description of the first difference.
function compareDuck(type, d, f, where) {
  if (d === null || d === undefined) return f === null ? null : `${where}: floe ${show(f)}, duckdb null`;
  if (f === null) return `${where}: floe null, duckdb ${show(String(d))}`;
  const id = type.typeId;
  const mismatch = (fv, dv) => `${where}: floe ${show(fv)}, duckdb ${show(dv)}`;
  switch (id) {
    case DuckDBTypeId.BOOLEAN:
      return f === d ? null : mismatch(f, d);
    case DuckDBTypeId.TINYINT: case DuckDBTypeId.SMALLINT: case DuckDBTypeId.INTEGER: case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UTINYINT: case DuckDBTypeId.USMALLINT: case DuckDBTypeId.UINTEGER: case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT: case DuckDBTypeId.UHUGEINT:
      return typeof f === 'bigint' && f === BigInt(d) ? null : mismatch(f, d);
    case DuckDBTypeId.FLOAT: case DuckDBTypeId.DOUBLE:
      return sameFloat(floatFromFloe(f), d, id === DuckDBTypeId.FLOAT) ? null : mismatch(f, d);
    case DuckDBTypeId.DECIMAL: {
      const m = typeof f === 'string' && /^(-?)(\d+)(?:\.(\d+))?$/.exec(f);
      if (!m || (m[3] ?? '').length !== d.scale) return `${where}: floe decimal ${show(f)} lacks scale ${d.scale}`;
      const unscaled = BigInt(m[1] + m[2] + (m[3] ?? ''));
      return unscaled === d.value ? null : mismatch(f, d.toString());
    }
    case DuckDBTypeId.DATE:
      return typeof f === 'string' && parseDate(f) === d.days ? null : mismatch(f, d.toString());
    case DuckDBTypeId.TIME: case DuckDBTypeId.TIME_NS: {
      if (typeof f !== 'string') return mismatch(f, d.toString());
      const nanos = parseTimeNanos(f);
      const duck = id === DuckDBTypeId.TIME ? d.micros * 1000n : d.nanos;
      return nanos === duck ? null : mismatch(f, d.toString());
    }
    case DuckDBTypeId.TIMESTAMP: case DuckDBTypeId.TIMESTAMP_TZ: case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_S: case DuckDBTypeId.TIMESTAMP_NS: {
      if (typeof f !== 'string') return mismatch(f, d.toString());
      const { nanos, utc } = parseTimestamp(f);
      // DuckDB reads the legacy converted types TIMESTAMP_MILLIS/MICROS as local
      // timestamps; parquet-format (and floe) say they are UTC instants. The
      // other direction (floe local, DuckDB UTC) is always an error.
      if (!utc && id === DuckDBTypeId.TIMESTAMP_TZ) return `${where}: floe ${f} is a local timestamp, duckdb type ${type}`;
      // Compare at DuckDB's precision (it reads INT96 and nanosecond timestamps as microseconds).
      const [duck, unit] = id === DuckDBTypeId.TIMESTAMP_NS ? [d.nanos, 1n]
        : id === DuckDBTypeId.TIMESTAMP_MS ? [d.millis, 1_000_000n]
          : id === DuckDBTypeId.TIMESTAMP_S ? [d.seconds, 1_000_000_000n] : [d.micros, 1000n];
      return floorDiv(nanos, unit) === duck ? null : mismatch(f, d.toString());
    }
    case DuckDBTypeId.VARCHAR: case DuckDBTypeId.ENUM:
      return f === d ? null : mismatch(f, d);
    case DuckDBTypeId.BLOB:
      return f === hex(d.bytes) ? null : mismatch(f, hex(d.bytes));
    case DuckDBTypeId.UUID:
      return f === d.toString() ? null : mismatch(f, d.toString());
    case DuckDBTypeId.INTERVAL: {
      // floe keeps Parquet INTERVAL as its 12 raw bytes: months, days, millis (little-endian uint32).
      if (typeof f !== 'string' || f.length !== 24) return mismatch(f, d.toString());
      const b = Buffer.from(f, 'hex');
      const ok = b.readUInt32LE(0) === d.months && b.readUInt32LE(4) === d.days && BigInt(b.readUInt32LE(8)) * 1000n === d.micros;
      return ok ? null : mismatch(f, d.toString());
    }
    case DuckDBTypeId.LIST: case DuckDBTypeId.ARRAY: {
      if (!Array.isArray(f) || f.length !== d.items.length) return mismatch(f, d.toString());
      for (let k = 0; k < f.length; k++) {
        const r = compareDuck(type.valueType, d.items[k], f[k], `${where}[${k}]`);
        if (r) return r;
      }
      return null;
    }
    case DuckDBTypeId.STRUCT: {
      if (typeof f !== 'object' || Array.isArray(f)) return mismatch(f, d.toString());
      const names = type.entryNames;
      if (Object.keys(f).join('\u0000') !== names.join('\u0000')) return `${where}: floe fields ${Object.keys(f)}, duckdb ${names}`;
      for (let k = 0; k < names.length; k++) {
        const r = compareDuck(type.entryTypes[k], d.entries[names[k]], f[names[k]], `${where}.${names[k]}`);
        if (r) return r;
      }
      return null;
    }
    case DuckDBTypeId.MAP: {
      if (!Array.isArray(f) || f.length !== d.entries.length) return mismatch(f, d.toString());
      for (let k = 0; k < f.length; k++) {
        const r = compareDuck(type.keyType, d.entries[k].key, f[k]?.key, `${where}[${k}].key`) ??
          compareDuck(type.valueType, d.entries[k].value, f[k]?.value, `${where}[${k}].value`);
        if (r) return r;
      }
      return null;
    }
    default:
      return `${where}: no comparison for duckdb type ${type}`;
  }
}

let duckConnection;
async function duck() {
  if (!duckConnection) duckConnection = await (await DuckDBInstance.create(':memory:')).connect();
  return duckConnection;
}

async function readWithDuckDB(file) {
  const con = await duck();
  const escaped = file.replaceAll("'", "''");
  const result = await con.runAndReadAll(`SELECT * FROM read_parquet('${escaped}')`);
  return { names: result.columnNames(), types: result.columnTypes(), rows: result.getRows() };
}

function compareWithDuckDB(expected, floeRows) {
  if (floeRows.length !== expected.rows.length) return `floe printed ${floeRows.length} rows, duckdb read ${expected.rows.length}`;
  for (let r = 0; r < floeRows.length; r++) {
    const row = floeRows[r];
    const keys = Object.keys(row);
    if (keys.join('\u0000') !== expected.names.join('\u0000')) return `row ${r}: floe columns ${keys}, duckdb ${expected.names}`;
    for (let c = 0; c < keys.length; c++) {
      const diff = compareDuck(expected.types[c], expected.rows[r][c], row[keys[c]], `row ${r} ${keys[c]}`);
      if (diff) return diff;
    }
  }
  return null;
}

// ---- comparison against hyparquet / expect.csv (untyped) -----------------------

function compareLoose(h, f, where) {
  const mismatch = () => `${where}: floe ${show(f)}, expected ${show(h)}`;
  if (h === null || h === undefined) return f === null ? null : mismatch();
  if (f === null) return mismatch();
  if (typeof h === 'bigint') return typeof f === 'bigint' && f === h ? null : mismatch();
  if (typeof h === 'number') {
    if (typeof f === 'bigint') return Number(f) === h ? null : mismatch();
    if (typeof f === 'string' && /^-?\d+\.\d+$/.test(f)) return Math.abs(Number(f) - h) <= 1e-9 * Math.max(1, Math.abs(h)) ? null : mismatch();
    return sameFloat(floatFromFloe(f), h, Math.fround(h) === h) ? null : mismatch();
  }
  if (typeof h === 'boolean' || typeof h === 'string') return f === h ? null : mismatch();
  if (h instanceof Uint8Array) return f === hex(h) ? null : mismatch();
  if (h instanceof Date) {
    if (typeof f !== 'string') return mismatch();
    return floorDiv(parseTimestamp(f).nanos, 1_000_000n) === BigInt(h.getTime()) ? null : mismatch();
  }
  if (Array.isArray(f) && typeof h === 'object' && !Array.isArray(h) && !(h instanceof Uint8Array)) {
    // hyparquet returns a map as a plain object keyed by the key's text.
    const entries = Object.entries(h);
    if (entries.length !== f.length) return mismatch();
    for (let k = 0; k < f.length; k++) {
      if (String(f[k]?.key) !== entries[k][0]) return mismatch();
      const r = compareLoose(entries[k][1], f[k].value, `${where}[${k}].value`);
      if (r) return r;
    }
    return null;
  }
  if (Array.isArray(h)) {
    if (!Array.isArray(f) || f.length !== h.length) return mismatch();
    for (let k = 0; k < h.length; k++) {
      const r = compareLoose(h[k], f[k], `${where}[${k}]`);
      if (r) return r;
    }
    return null;
  }
  if (typeof h === 'object') {
    if (typeof f !== 'object' || Array.isArray(f)) return mismatch();
    for (const k of Object.keys(h)) {
      const r = compareLoose(h[k], f[k], `${where}.${k}`);
      if (r) return r;
    }
    return Object.keys(f).length === Object.keys(h).length ? null : mismatch();
  }
  return mismatch();
}

async function readWithHyparquet(file) {
  const bytes = fs.readFileSync(file);
  const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return parquetReadObjects({ file: arrayBuffer, compressors, utf8: false });
}

// *_expect.csv: header row, plain values; empty = null. Values are compared as text.
function readExpectCsv(file) {
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l.length > 0);
  const header = lines[0].split(',');
  return lines.slice(1).map((l) => {
    const cells = l.split(',');
    return Object.fromEntries(header.map((h, k) => [h, cells[k] === '' || cells[k] === undefined ? null : cells[k]]));
  });
}

function compareWithCsv(expected, floeRows) {
  if (floeRows.length !== expected.length) return `floe printed ${floeRows.length} rows, expect.csv has ${expected.length}`;
  for (let r = 0; r < expected.length; r++) {
    for (const [k, v] of Object.entries(expected[r])) {
      const f = floeRows[r][k];
      const text = f === null || f === undefined ? null : typeof f === 'string' ? f : String(f);
      if (text !== v && !(v !== null && text !== null && Number(v) === Number(text))) return `row ${r} ${k}: floe ${show(f)}, expect.csv ${show(v)}`;
    }
  }
  return null;
}

// ---- the tests ---------------------------------------------------------------------

const haveCorpus = fs.existsSync(DATA);
const skip = !FLOE ? 'FLOE_BIN is not set' : !haveCorpus ? `shared Parquet corpus not found at ${CORPUS}` : false;
if (skip) console.log(`# skipped: ${skip}`);

const failures = [];

test('every corpus file reads like an independent reader reads it', { skip }, async (t) => {
  for (const name of listCorpus()) {
    await t.test(name, async (st) => {
      const file = path.join(DATA, name);
      if (HUGE_VALUE_FILES[name]) {
        // Streaming a 1 GiB value through floe and DuckDB takes minutes on two
        // cores: a long mode (docs/testing.md).
        if (process.env.FLOE_CORPUS_HUGE !== '1') {
          st.skip('a 1 GiB value: set FLOE_CORPUS_HUGE=1 to check it');
          return;
        }
        try {
          await compareHugeFile(name, file, st);
        } catch (e) {
          failures.push(`${name}: ${e.message.split('\n')[0].slice(0, 300)}`);
          throw e;
        }
        return;
      }
      const out = runFloe(['parquet', 'cat', '--format', 'jsonl', file]);
      const refusal = EXPECTED_REFUSALS.find((r) => r.match(name));
      try {
        assert.equal(out.signal, null, `floe was killed by ${out.signal}`);
        if (refusal) {
          st.diagnostic('expected refusal');
          assert.equal(out.status, 1, `expected floe to refuse ${name}; stderr: ${out.stderr}`);
          assert.match(out.stderr, /^floe: /);
          assert.match(out.stderr, refusal.message);
          assert.ok(out.stderr.includes(name.split('/').pop()), `message must name the file: ${out.stderr}`);
          return;
        }
        assert.equal(out.status, 0, `floe failed: ${out.stderr}`);
        const rows = out.stdout.split('\n').filter((l) => l.length > 0).map(parseJsonExact);
        let diff;
        let expected;
        try {
          expected = await readWithDuckDB(file);
        } catch (e) {
          st.diagnostic(`duckdb cannot read it (${e.message.split('\n')[0].slice(0, 120)})`);
        }
        if (DOCUMENTED_ORACLES[name]) {
          st.diagnostic('oracle: the values listed in the file\'s .md');
          diff = DOCUMENTED_ORACLES[name](rows);
        } else if (expected) {
          st.diagnostic('oracle: duckdb');
          diff = compareWithDuckDB(expected, rows);
        } else if (fs.existsSync(file.replace(/\.parquet$/, '_expect.csv'))) {
          st.diagnostic('oracle: expect.csv');
          diff = compareWithCsv(readExpectCsv(file.replace(/\.parquet$/, '_expect.csv')), rows);
        } else {
          st.diagnostic('oracle: hyparquet');
          const hyp = await readWithHyparquet(file);
          diff = hyp.length === rows.length ? null : `floe printed ${rows.length} rows, hyparquet read ${hyp.length}`;
          for (let r = 0; r < hyp.length && !diff; r++) diff = compareLoose(hyp[r], rows[r], `row ${r}`);
        }
        assert.equal(diff, null, diff ?? '');
      } catch (e) {
        if (process.env.FLOE_CORPUS_DEBUG) console.log(e.stack);
        failures.push(`${name}: ${e.message.split('\n')[0].slice(0, 300)}`);
        throw e;
      }
    });
  }
  if (failures.length) console.log(`# corpus files that do not match:\n${failures.map((f) => `#   ${f}`).join('\n')}`);
});

function assertCleanFailure(out, label, fileName) {
  assert.notEqual(out.error?.code, 'ETIMEDOUT', `${label}: floe hung`);
  assert.equal(out.signal, null, `${label}: floe crashed with ${out.signal}; stderr: ${out.stderr.slice(0, 500)}`);
  assert.equal(out.status, 1, `${label}: expected exit code 1, got ${out.status}; stderr: ${out.stderr.slice(0, 300)}`);
  assert.match(out.stderr, /^floe: /, `${label}: message must start with "floe: "`);
  assert.ok(out.stderr.includes(fileName), `${label}: message must name the file: ${out.stderr.slice(0, 300)}`);
}

// bad_data files that are valid Parquet kept as crash regressions: they must
// read like DuckDB reads them.
const BAD_DATA_VALID = {
  // Dictionary indices with RLE bit width 0 (all indices 0) are legal; the bug was a reader crash.
  'ARROW-GH-43605.parquet': 'dictionary indices with bit width 0',
};

test('bad_data files fail cleanly, naming the file', { skip }, async () => {
  const files = fs.readdirSync(BAD).filter((f) => f.endsWith('.parquet')).sort();
  assert.ok(files.length > 0);
  for (const name of files) {
    if (BAD_DATA_VALID[name]) {
      const out = runFloe(['parquet', 'cat', path.join(BAD, name)]);
      assert.equal(out.status, 0, `${name} (${BAD_DATA_VALID[name]}): ${out.stderr}`);
      const rows = out.stdout.split('\n').filter((l) => l.length > 0).map(parseJsonExact);
      const diff = compareWithDuckDB(await readWithDuckDB(path.join(BAD, name)), rows);
      assert.equal(diff, null, `${name}: ${diff}`);
      continue;
    }
    const out = runFloe(['parquet', 'cat', path.join(BAD, name)]);
    assertCleanFailure(out, name, name);
  }
});

// A small deterministic PRNG (mulberry32) so the damage is the same every run.
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const DAMAGE_SOURCES = [
  'alltypes_plain.parquet', 'alltypes_dictionary.parquet', 'datapage_v2.snappy.parquet', 'nested_lists.snappy.parquet',
  'nested_maps.snappy.parquet', 'delta_byte_array.parquet', 'delta_binary_packed.parquet', 'byte_stream_split.zstd.parquet',
  'nullable.impala.parquet', 'lz4_raw_compressed.parquet', 'rle_boolean_encoding.parquet', 'int96_from_spark.parquet',
];

test('truncated and bit-flipped files never crash or hang', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-damaged-'));
  try {
    const random = prng(20261130);
    for (const name of DAMAGE_SOURCES) {
      const bytes = fs.readFileSync(path.join(DATA, name));
      // Truncations cut the footer or the data: both must be clean errors.
      for (const keep of [0, 3, 8, 12, bytes.length >> 1, bytes.length - 9, bytes.length - 1]) {
        const damaged = path.join(dir, `trunc-${keep}-${name}`);
        fs.writeFileSync(damaged, bytes.subarray(0, keep));
        assertCleanFailure(runFloe(['parquet', 'cat', damaged]), `${name} cut to ${keep} bytes`, path.basename(damaged));
      }
      // Bit flips may still decode (a flipped value byte is valid data); only an exit code of 0 or 1 is acceptable.
      for (let k = 0; k < 12; k++) {
        const copy = Buffer.from(bytes);
        const flips = 1 + Math.floor(random() * 4);
        for (let j = 0; j < flips; j++) copy[Math.floor(random() * copy.length)] ^= 1 << Math.floor(random() * 8);
        const damaged = path.join(dir, `flip-${k}-${name}`);
        fs.writeFileSync(damaged, copy);
        const out = runFloe(['parquet', 'cat', damaged]);
        assert.notEqual(out.error?.code, 'ETIMEDOUT', `${damaged}: floe hung`);
        assert.equal(out.signal, null, `${damaged}: floe crashed with ${out.signal}; stderr: ${out.stderr.slice(0, 500)}`);
        assert.ok(out.status === 0 || out.status === 1, `${damaged}: exit code ${out.status}`);
        if (out.status === 1) assertCleanFailure(out, damaged, path.basename(damaged));
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('schema and meta print for every readable corpus file', { skip }, () => {
  for (const name of listCorpus()) {
    if (EXPECTED_REFUSALS.some((r) => r.match(name) && !/checksum/.test(name))) continue;
    for (const command of ['schema', 'meta']) {
      const out = runFloe(['parquet', command, path.join(DATA, name)]);
      assert.equal(out.status, 0, `floe parquet ${command} ${name}: ${out.stderr}`);
      assert.ok(out.stdout.length > 0);
    }
  }
});
