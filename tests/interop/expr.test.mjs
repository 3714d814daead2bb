// The expression language against DuckDB: random Parquet files written by
// DuckDB (nulls everywhere, decimals, timestamps written from several time
// zones, UTF-8 strings, integer and decimal edge values) are read by
// `floe expr eval` and by DuckDB evaluating the SAME SQL text (TimeZone
// 'UTC', the only zone floe knows); every operator and function of
// docs/expressions.md is compared value by value, and the result types
// (`floe expr check`) against DuckDB's typeof. Deliberate differences are
// listed in DIFFERENCES with what floe does instead, and each is tested.
//
// Env: FLOE_BIN (required); FLOE_EXPR_SEED (optional, a seed to replace the
// fixed one); FLOE_KEEP_TEMP=1 keeps the work directory.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';

import { DuckDBInstance } from '@duckdb/node-api';

import { makeRng } from '../tools/random_parquet.mjs';

const run = promisify(execFile);
const FLOE_BIN = process.env.FLOE_BIN;
const SEED = Number(process.env.FLOE_EXPR_SEED ?? 20261201);
const ROWS = 3000;

let work;
let db;
let conn;
let file;

const sq = (s) => `'${String(s).replace(/'/g, "''")}'`;

// Strings that exercise UTF-8 and the functions: accents, sigma, ß and ẞ,
// dotted I, CJK, emoji (4-byte), combining marks, LIKE's own characters,
// spaces at the ends, numbers and timestamps as text.
const WORDS = [
  'héllo', 'HÉLLO', 'world', 'ΣΑΣ', 'σας', 'straße', 'STRASSE', 'ẞ', 'İstanbul', '東京', '🦆 duck', 'e\u0301',
  'a_c', 'a%c', '100%', '  padded  ', ' ', '', 'abc', 'ABC', 'xyz', 'b', 'a', 'Ǆ', 'ǆ', 'ﬁ', 'line\nbreak',
  '42', '-17', ' 12 ', '3.5', '1e3', 'nan', '2024-02-29', '2024-03-10 02:30:00', '2024-03-10T02:30:00+05:30',
];
const CURRENCIES = ['EUR', 'USD', 'GBP', 'eur', null];
const ZONES = ['+00:00', '-08:00', '+05:30', '+14:00', '-12:00', '+01:00'];

function randomRows(rng) {
  const rows = [];
  const maybe = (p, f) => (rng.next() < p ? null : f());
  const pad = (n, w = 2) => String(n).padStart(w, '0');
  for (let r = 0; r < ROWS; r++) {
    const year = 1969 + rng.int(60);
    const date = `${year}-${pad(1 + rng.int(12))}-${pad(1 + rng.int(28))}`;
    const time = `${pad(rng.int(24))}:${pad(rng.int(60))}:${pad(rng.int(60))}.${pad(rng.int(1000000), 6)}`;
    rows.push({
      id: r,
      i: maybe(0.15, () => rng.int(2001) - 1000),
      b: maybe(0.15, () => (rng.int(2) ? rng.int(1e9) - 5e8 : rng.int(2001) - 1000)),
      k: maybe(0.1, () => rng.int(7) - 3),  // small divisors, zero included
      d18: maybe(0.15, () => ((rng.int(2e8) - 1e8) / 100).toFixed(2)),
      d9: maybe(0.15, () => ((rng.int(2e6) - 1e6) / 10000).toFixed(4)),
      d38: maybe(0.15, () => `${rng.int(2) ? '-' : ''}${rng.int(1e9)}${rng.int(1e9)}.${pad(rng.int(1e10), 10)}`),
      x: maybe(0.15, () => rng.pick([(rng.next() - 0.5) * 1000, rng.int(100) - 50, (rng.next() - 0.5) * 1e-3, 0.1, 2.5, -2.5, 1e15 + 0.5])),
      f: maybe(0.15, () => Math.fround((rng.next() - 0.5) * 100)),
      s: maybe(0.15, () => rng.pick(WORDS)),
      cur: rng.pick(CURRENCIES),
      ts: maybe(0.15, () => `${date} ${time}`),
      tz: maybe(0.15, () => `${date} ${time}${rng.pick(ZONES)}`),
      dt: maybe(0.15, () => date),
      flag: maybe(0.15, () => rng.int(2) === 1),
      u: maybe(0.15, () => [8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, () => '0123456789abcdef'[rng.int(16)]).join('')).join('-')),
      // Only the overflow tests read these: row 1234 holds the edges.
      big: r === 1234 ? 2147483647 : rng.int(1000),
      bigl: r === 1234 ? '9223372036854775807' : String(rng.int(1000)),
      dmax: r === 1234 ? '99999999999999999999999999999999999999' : String(rng.int(1000)),
    });
  }
  return rows;
}

const COLUMNS = `id BIGINT, i INTEGER, b BIGINT, k INTEGER, d18 DECIMAL(18,2), d9 DECIMAL(9,4), d38 DECIMAL(38,10),
  x DOUBLE, f FLOAT, s VARCHAR, cur VARCHAR, ts TIMESTAMP, tz TIMESTAMPTZ, dt DATE, flag BOOLEAN, u UUID,
  big INTEGER, bigl BIGINT, dmax DECIMAL(38,0)`;

before(async () => {
  assert.ok(FLOE_BIN, 'FLOE_BIN must name the floe binary');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-expr-'));
  db = await DuckDBInstance.create(':memory:', { threads: '1' });
  conn = await db.connect();
  await conn.run("SET TimeZone = 'UTC'");
  const rows = randomRows(makeRng(SEED));
  const json = path.join(work, 'rows.json');
  fs.writeFileSync(json, rows.map((r) => JSON.stringify(r)).join('\n'));
  const columns = Object.fromEntries(
    COLUMNS.split(/,\s*(?![^()]*\))/).map((c) => c.trim().split(/\s+/)).map(([n, ...t]) => [n, t.join(' ')]),
  );
  const struct = `{${Object.entries(columns).map(([n, t]) => `${n}: '${t}'`).join(', ')}}`;
  file = path.join(work, 'data.parquet');
  await conn.run(
    `COPY (SELECT * FROM read_json(${sq(json)}, format = 'newline_delimited', columns = ${struct}) ORDER BY id)
     TO ${sq(file)} (FORMAT parquet)`,
  );
});

after(() => {
  if (process.env.FLOE_KEEP_TEMP === '1') {
    console.log(`kept ${work}`);
  } else if (work) {
    fs.rmSync(work, { recursive: true, force: true });
  }
});

// Flat JSON objects of one line: key -> raw value text (strings decoded),
// so 64-bit integers keep every digit.
function parseFlatJson(line) {
  const out = {};
  let i = 1;
  const readString = () => {
    const start = i;
    i++;
    while (line[i] !== '"') i += line[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(line.slice(start, i));
  };
  while (line[i] !== '}') {
    const key = readString();
    i++;  // ':'
    if (line[i] === '"') {
      out[key] = { string: readString() };
    } else {
      const start = i;
      while (line[i] !== ',' && line[i] !== '}') i++;
      out[key] = { raw: line.slice(start, i) };
    }
    if (line[i] === ',') i++;
  }
  return out;
}

async function floeEval(selects, extra = []) {
  const args = ['expr', 'eval', file, '--ingestion-time', '2026-12-01T10:00:00Z', ...extra];
  selects.forEach((s, n) => args.push('--select', `e${n}=${s}`));
  const { stdout } = await run(FLOE_BIN, args, { maxBuffer: 1 << 28 });
  return stdout.trim().split('\n').map(parseFlatJson);
}

// DuckDB's value of every row as text in floe's JSON value format, by type.
function duckRender(type) {
  if (type === 'BOOLEAN') return "CASE WHEN v IS NULL THEN NULL WHEN v THEN 'true' ELSE 'false' END";
  if (type === 'TIMESTAMP') return "strftime(v, '%Y-%m-%dT%H:%M:%S.%f')";
  if (type === 'TIMESTAMP WITH TIME ZONE') return "strftime(v, '%Y-%m-%dT%H:%M:%S.%fZ')";
  if (type === 'DOUBLE' || type === 'FLOAT') return 'v';
  return 'CAST(v AS VARCHAR)';
}

async function duckEval(sql) {
  const typeReader = await conn.runAndReadAll(
    `SELECT typeof(${sql}) FROM read_parquet(${sq(file)}) LIMIT 1`,
  );
  const type = typeReader.getRows()[0][0];
  const reader = await conn.runAndReadAll(
    `SELECT ${duckRender(type)} FROM (SELECT ${sql} AS v, file_row_number AS r
       FROM read_parquet(${sq(file)}, file_row_number = true)) ORDER BY r`,
  );
  return { type, values: reader.getRows().map((row) => row[0]) };
}

const FLOE_TYPE_OF_DUCK = {
  BOOLEAN: 'boolean', INTEGER: 'int', BIGINT: 'long', FLOAT: 'float', DOUBLE: 'double', DATE: 'date',
  TIMESTAMP: 'timestamp', 'TIMESTAMP WITH TIME ZONE': 'timestamptz', VARCHAR: 'string', UUID: 'uuid',
  BLOB: 'binary', TIME: 'time',
};
const floeTypeOf = (duck) => FLOE_TYPE_OF_DUCK[duck] ?? duck.toLowerCase().replace(/\s/g, '');

// Decimal text -> [BigInt unscaled, scale].
function decimalParts(text) {
  const negative = text.startsWith('-');
  const [intPart, frac = ''] = text.replace('-', '').split('.');
  return [(negative ? -1n : 1n) * BigInt(intPart + frac), frac.length];
}
function sameDecimal(a, b) {
  const [ua, sa] = decimalParts(a);
  const [ub, sb] = decimalParts(b);
  const s = Math.max(sa, sb);
  return ua * 10n ** BigInt(s - sa) === ub * 10n ** BigInt(s - sb);
}
const floeNumber = (cell) => (cell.string !== undefined ? Number(cell.string === 'NaN' ? NaN : cell.string) : Number(cell.raw));

// Whether floe's cell equals DuckDB's value rendered by duckRender.
function sameValue(floeCell, duckValue, type, { tolerance } = {}) {
  if (duckValue === null) return floeCell.raw === 'null';
  if (floeCell.raw === 'null') return false;
  if (type === 'DOUBLE' || type === 'FLOAT') {
    const a = floeNumber(floeCell);
    const b = Number(duckValue);
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
    if (type === 'FLOAT') return Math.fround(a) === Math.fround(b);
    if (tolerance) return Math.abs(a - b) <= tolerance(b);
    return a === b;
  }
  const text = floeCell.string ?? floeCell.raw;
  if (type.startsWith('DECIMAL')) {
    if (tolerance) return Math.abs(Number(text) - Number(duckValue)) <= tolerance(Number(duckValue));
    return sameDecimal(text, duckValue);
  }
  return text === String(duckValue);
}

// Every operator and function of the language. `duck` is DuckDB's spelling
// where it differs (floe's to_date is DuckDB's CAST(... AS DATE)).
const CASES = [
  // arithmetic
  'i + b', 'b - i', 'i * k', 'b * 3', 'i / 7', 'i / k', 'i // 7', 'i % 7', 'i % k', 'i // k', '-i', '- d18', '-x',
  'd18 + d9', 'd18 - 1.5', 'd18 + i', 'd9 * 2', 'd18 * 1.09', 'd18 % d9', 'd18 % 7', 'd38 + d38', 'd38 - d18', 'd38 * 2',
  'x * 2 + i', 'x / k', 'x % k', 'f + 1', 'f * i', 'x + d18', 'f + d9', 'i + 1.5', 'b + 0.25',
  // comparisons
  'i > 0', 'i = b', 'i <> k', 'd18 > 100.5', 'd18 <= d9', 'x < 0.5', 'x = x', 'f >= 0', 'x > i',
  "s > 'm'", "s = 'héllo'", 's < cur', "ts > TIMESTAMP '2000-06-01 00:00:00'", "tz > TIMESTAMPTZ '2000-06-01 00:00:00+02'",
  'ts = tz', 'ts < tz', 'dt < ts', 'dt >= tz', "dt = DATE '1999-03-01'", "ts > '2000-06-01'", "tz < '2000-06-01 10:00:00-03:00'",
  "u > '80000000-0000-0000-0000-000000000000'", 'flag = (i > 0)', 'd38 > d18',
  // logic and null tests
  'flag', 'NOT flag', 'flag AND i > 0', 'flag OR x IS NULL', 'i IS NULL', 's IS NOT NULL', 'NOT (i > 0 OR b < 0)',
  'i > 0 AND NULL', 'i > 0 OR NULL', 'flag AND (s LIKE \'a%\' OR NOT flag)',
  // IN and BETWEEN
  'i IN (1, 2, 3, -5)', 'i IN (1, 2, NULL)', 'i NOT IN (1, 2)', 'i NOT IN (1, NULL)', "s IN ('a', 'héllo', 'ẞ')",
  'i IN (k, b, 7)', 'd18 IN (1.5, 100)', 'i BETWEEN -100 AND 100', 'd18 NOT BETWEEN 0 AND 500', 'i BETWEEN k AND b',
  "ts BETWEEN '1990-01-01' AND '2010-01-01'",
  // LIKE / ILIKE
  "s LIKE '%é%'", "s LIKE 'a_c%'", "s NOT LIKE '%x'", "s ILIKE '%ÄB%'", "s ILIKE 'héllo'", "s LIKE '%!%%' ESCAPE '!'",
  "s LIKE 'a!_c' ESCAPE '!'", "s LIKE '_'", "s LIKE '%'", "s LIKE ''", "s LIKE '__'", "s LIKE '%l%o%'", "s ILIKE 'STRA%E'",
  's LIKE cur', "s NOT ILIKE '%A%'",
  // CASE, COALESCE, NULLIF
  "CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'neg' ELSE 'zero' END",
  "CASE s WHEN 'a' THEN 1 WHEN 'b' THEN 2 END",
  "CASE WHEN cur = 'EUR' THEN d18 * 1.09 WHEN cur = 'GBP' THEN d18 * 1.27 ELSE d18 END",
  'CASE WHEN flag THEN d18 ELSE i END', 'CASE WHEN flag THEN x ELSE f END', 'CASE WHEN k = 0 THEN NULL ELSE i // k END',
  'coalesce(i, b, 0)', 'coalesce(s, cur)', 'coalesce(d18, i)', 'coalesce(ts, tz)', 'nullif(i, 0)', "nullif(s, 'a')",
  // CAST
  'CAST(i AS string)', 'CAST(x AS string)', 'CAST(f AS string)', 'CAST(d18 AS string)', 'CAST(ts AS string)',
  'CAST(tz AS string)', 'CAST(dt AS string)', 'CAST(flag AS string)', 'CAST(u AS string)', 'CAST(d18 AS double)',
  // floe rounds a wide decimal to the nearest double; DuckDB can be an ulp
  // off (tested below), so its exact spelling is the decimal's text read back.
  { floe: 'CAST(d38 AS double)', duck: 'CAST(CAST(d38 AS VARCHAR) AS DOUBLE)' }, 'TRY_CAST(x AS int)', 'CAST(x AS long)', 'CAST(x / 1e6 AS int)', 'CAST(d18 AS int)', 'CAST(d9 AS long)',
  'CAST(d18 AS decimal(10,1))', 'CAST(d9 AS decimal(6,2))', 'CAST(x AS decimal(20,3))', 'CAST(i AS decimal(6,2))',
  'CAST(f AS double)', 'CAST(i AS float)', 'CAST(b AS double)', 'CAST(flag AS int)', 'CAST(i AS boolean)',
  'CAST(ts AS date)', 'CAST(tz AS date)', 'CAST(dt AS timestamp)', 'CAST(dt AS timestamptz)', 'CAST(ts AS timestamptz)',
  'CAST(tz AS timestamp)', 'TRY_CAST(s AS int)', 'TRY_CAST(s AS double)', 'TRY_CAST(s AS decimal(10,2))',
  'TRY_CAST(s AS date)', 'TRY_CAST(s AS timestamp)', 'TRY_CAST(s AS timestamptz)', 'TRY_CAST(s AS boolean)',
  'CAST(i AS long) * b', 'i::long + 1', "CAST('2024-02-29' AS date)",
  // strings
  'length(s)', 'lower(s)', 'upper(s)', 'trim(s)', "trim(s, 'a ')", 'ltrim(s)', 'rtrim(s)', "ltrim(s, ' h')",
  'substr(s, 2)', 'substr(s, 2, 3)', 'substr(s, -3, 2)', 'substr(s, 0, 2)', 'substr(s, k, 2)', 'substr(s, 2, k)',
  'substring(s, -1)', "concat(s, '-', i)", 'concat(s, NULL, d18)', 'concat(i, x, dt, flag)', "s || '!'", 's || cur',
  "regexp_matches(s, '[0-9]+')", "regexp_matches(s, '^h', 'i')", "regexp_matches(s, 'a.c')", "regexp_matches(s, '^\\\\s')",
  "regexp_matches(s, 'line.break')", "regexp_matches(s, 'line.break', 's')",
  // dates and times
  "date_trunc('year', ts)", "date_trunc('quarter', ts)", "date_trunc('month', ts)", "date_trunc('week', ts)",
  "date_trunc('day', ts)", "date_trunc('hour', ts)", "date_trunc('minute', ts)", "date_trunc('second', ts)",
  "date_trunc('millisecond', ts)", "date_trunc('day', tz)", "date_trunc('hour', tz)", "date_trunc('month', dt)",
  "date_trunc('decade', dt)", "date_trunc('century', ts)", "date_trunc('millennium', tz)",
  'year(ts)', 'month(tz)', 'day(dt)', 'hour(tz)', 'minute(ts)', 'second(ts)', 'year(dt)', 'hour(dt)',
  { floe: 'to_date(ts)', duck: 'CAST(ts AS DATE)' },
  { floe: 'to_date(tz)', duck: 'CAST(tz AS DATE)' },
  { floe: "to_date('2024-02-29')", duck: "CAST('2024-02-29' AS DATE)" },
  // context
  { floe: 'source_row()', duck: 'file_row_number' },
  { floe: 'ingestion_time()', duck: "TIMESTAMPTZ '2026-12-01 10:00:00+00'" },
  { floe: 'current_timestamp', duck: "TIMESTAMPTZ '2026-12-01 10:00:00+00'" },
];

// Deliberate differences: DuckDB's type or value, and floe's instead.
const DIFFERENCES = {
  // DuckDB divides decimals as doubles; floe keeps an exact decimal with
  // Spark's scale (docs/expressions.md). Values agree within the scale's rounding.
  'd18 / d9': 'decimal division',
  'd18 / 4': 'decimal division',
  'd9 / 3.0': 'decimal division',
  'i / d9': 'decimal division',
  // DuckDB keeps the product of two decimals of precision <= 18 at 18
  // digits (and fails above); floe uses p1 + p2 as the SQL standard does.
  'd18 * d9': 'decimal multiplication precision',
  'd9 * d9': 'decimal multiplication precision',
};

async function compareCase(spec) {
  const floeSql = typeof spec === 'string' ? spec : spec.floe;
  const duckSql = typeof spec === 'string' ? spec : spec.duck;
  const duck = await duckEval(duckSql);
  return { floeSql, duckSql, duck };
}

test('floe expr eval equals DuckDB on every operator and function', async () => {
  const specs = [...CASES, ...Object.keys(DIFFERENCES)];
  const prepared = [];
  for (const spec of specs) prepared.push(await compareCase(spec));
  const rows = await floeEval(prepared.map((p) => p.floeSql));
  assert.equal(rows.length, ROWS);
  const failures = [];
  prepared.forEach((p, n) => {
    const difference = DIFFERENCES[p.floeSql];
    let tolerance;
    if (difference === 'decimal division') {
      // floe's decimal is the exact quotient rounded to its scale; DuckDB's double is within 1 ulp-ish.
      tolerance = (v) => Math.abs(v) * 4e-16 + 1e-6;
    }
    let shown = 0;
    for (let r = 0; r < ROWS; r++) {
      const cell = rows[r][`e${n}`];
      if (!sameValue(cell, p.duck.values[r], p.duck.type, { tolerance })) {
        if (shown++ < 3) {
          failures.push(`${p.floeSql} row ${r}: floe ${JSON.stringify(cell)} DuckDB ${JSON.stringify(p.duck.values[r])} (${p.duck.type})`);
        }
      }
    }
  });
  assert.deepEqual(failures, []);
});

// DuckDB keeps + - * of two decimals of precision <= 18 at precision 18
// (its 64-bit fast path, failing when a value needs more); floe gives the
// standard precision (p1+p2 for *, max integer digits + scale + 1 for + -).
// The values agree wherever DuckDB does not fail (the value test above).
const DUCKDB_18_DIGIT_RULE = new Set(['d18 + d9', 'd18 - 1.5', 'd18 + i', 'd9 * 2', 'd18 * 1.09',
  "CASE WHEN cur = 'EUR' THEN d18 * 1.09 WHEN cur = 'GBP' THEN d18 * 1.27 ELSE d18 END"]);

test('floe expr check gives DuckDB result types', async () => {
  const failures = [];
  const widened = [];
  for (const spec of CASES) {
    const floeSql = typeof spec === 'string' ? spec : spec.floe;
    const duckSql = typeof spec === 'string' ? spec : spec.duck;
    const { stdout } = await run(FLOE_BIN, ['expr', 'check', '--schema-from', file, '--', floeSql]);
    const { type } = await duckEval(duckSql);
    const floeType = stdout.trim();
    if (floeType === floeTypeOf(type)) continue;
    const [, fp, fs_] = floeType.match(/^decimal\((\d+),(\d+)\)$/) ?? [];
    const [, dp, ds] = type.match(/^DECIMAL\((\d+),(\d+)\)$/) ?? [];
    if (DUCKDB_18_DIGIT_RULE.has(floeSql) && fs_ === ds && Number(dp) <= 20 && Number(fp) > Number(dp)) {
      widened.push(floeSql);
      continue;
    }
    failures.push(`${floeSql}: floe ${floeType}, DuckDB ${type}`);
  }
  assert.deepEqual(failures, []);
  assert.deepEqual(widened.sort(), [...DUCKDB_18_DIGIT_RULE].sort());
});

test('deliberate differences: decimal division and multiplication types', async () => {
  const types = {};
  for (const sql of Object.keys(DIFFERENCES)) {
    const { stdout } = await run(FLOE_BIN, ['expr', 'check', '--schema-from', file, '--', sql]);
    types[sql] = [stdout.trim(), (await duckEval(sql)).type];
  }
  assert.deepEqual(types, {
    'd18 / d9': ['decimal(32,12)', 'DOUBLE'],
    'd18 / 4': ['decimal(29,13)', 'DOUBLE'],
    'd9 / 3.0': ['decimal(13,7)', 'DOUBLE'],
    'i / d9': ['decimal(24,10)', 'DOUBLE'],
    'd18 * d9': ['decimal(27,6)', 'DECIMAL(18,6)'],
    'd9 * d9': ['decimal(18,8)', 'DECIMAL(18,8)'],
  });
  // floe's decimal quotient is exact: the BigInt quotient rounded half away from zero.
  const rows = await floeEval(['d18 / d9', 'd18', 'd9']);
  let checked = 0;
  for (const row of rows) {
    if (row.e0.raw === 'null') continue;
    const [a] = decimalParts(row.e1.string);
    const [b] = decimalParts(row.e2.string);
    // (a / 100) / (b / 10^4) at scale 12 = a * 10^14 / b / 10^12.
    const num = a * 10n ** 14n;
    let q = num / b;
    const rem = num % b;
    if (2n * (rem < 0n ? -rem : rem) >= (b < 0n ? -b : b)) q += (num < 0n) !== (b < 0n) ? -1n : 1n;
    const [got, scale] = decimalParts(row.e0.string);
    assert.equal(scale, 12);
    assert.equal(got, q, `row ${JSON.stringify(row)}`);
    checked++;
  }
  assert.ok(checked > 1000);
  // A wide decimal to double: floe's is the nearest double (DuckDB's own
  // text-to-double reading agrees), DuckDB's direct cast is an ulp off on some rows.
  const direct = await duckEval('CAST(d38 AS DOUBLE)');
  const viaText = await duckEval('CAST(CAST(d38 AS VARCHAR) AS DOUBLE)');
  assert.ok(direct.values.some((v, r) => v !== viaText.values[r]), 'DuckDB rounds some wide decimals differently');
  // Division by zero: DuckDB gives Infinity (double), floe null (a decimal has no infinity).
  const zero = await floeEval(['d18 / 0', 'd18 / CAST(k - k AS decimal(4,0))']);
  assert.ok(zero.every((row) => row.e0.raw === 'null' && row.e1.raw === 'null'));
});

test('overflow is an error naming the row, as DuckDB fails', async () => {
  const cases = [
    ['big + 1', 'overflow in + of int (2147483647 + 1)'],
    ['big * 2', 'overflow in * of int (2147483647 * 2)'],
    ['-(-big - 1)', 'overflow in negation of int (--2147483648)'],
    ['bigl + big', 'overflow in + of long (9223372036854775807 + 2147483647)'],
    ['dmax + 1', 'overflow in + of decimal(38,0) (99999999999999999999999999999999999999 + 1)'],
    ['dmax * 10', 'overflow in * of decimal(38,0)'],
    ['CAST(big AS long) * bigl', 'overflow in * of long'],
    ['CAST(bigl AS int)', 'value 9223372036854775807 of long is out of range for int'],
    ['CAST(dmax AS decimal(10,0))', 'is out of range for decimal(10,0)'],
  ];
  for (const [sql, message] of cases) {
    await assert.rejects(conn.run(`SELECT ${sql} FROM read_parquet(${sq(file)})`), /Overflow|out of range|Conversion/i, sql);
    const failed = await run(FLOE_BIN, ['expr', 'eval', file, '--select', `v=${sql}`]).then(
      () => null,
      (e) => e,
    );
    assert.ok(failed, `${sql} must fail`);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, new RegExp(`expression "${sql.replace(/[()*+]/g, '\\$&')}"`), sql);
    assert.ok(failed.stderr.includes(message), `${sql}: ${failed.stderr}`);
    assert.ok(failed.stderr.includes(`at row 1234 of the batch (${file}, row 1234)`), `${sql}: ${failed.stderr}`);
  }
  // The same expressions never fail on rows a CASE or AND does not reach.
  const guarded = await floeEval(['CASE WHEN big < 1000 THEN big + 1 END', 'big < 1000 AND big * 2 > 0']);
  assert.equal(guarded[1234].e0.raw, 'null');
  assert.equal(guarded[1234].e1.raw, 'false');
});

test('bad expressions give positioned errors at bind time', async () => {
  const cases = [
    ['i +', 'position 4: expected an expression, found end of input'],
    ['nosuch > 1', "position 1: no column named 'nosuch'"],
    ["s > 1", "position 3: cannot compare string column 's' and int constant"],
    ["d18 > 'abc'", "position 7: 'abc' is not a value of type decimal(18,2)"],
    ['upper(i)', "position 7: upper() needs a string, found int column 'i'"],
  ];
  for (const [sql, message] of cases) {
    const failed = await run(FLOE_BIN, ['expr', 'check', '--schema-from', file, '--', sql]).then(() => null, (e) => e);
    assert.ok(failed, sql);
    assert.ok(failed.stderr.includes(`expression "${sql}": ${message}`), `${sql}: ${failed.stderr}`);
  }
});

test('--where keeps the rows DuckDB keeps; source_file() names the file', async () => {
  const where = "i > 0 AND (s LIKE '%a%' OR d18 BETWEEN -1000 AND 1000) AND ts IS NOT NULL";
  const rows = await floeEval(['id', 'source_file()'], ['--where', where]);
  const duck = await conn.runAndReadAll(`SELECT id FROM read_parquet(${sq(file)}) WHERE ${where} ORDER BY id`);
  assert.deepEqual(rows.map((r) => r.e0.raw), duck.getRows().map((r) => String(r[0])));
  assert.ok(rows.length > 100);
  assert.ok(rows.every((r) => r.e1.string === file));
});
