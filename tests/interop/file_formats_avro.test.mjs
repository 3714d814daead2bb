// Interop: `floe file cat` reads Avro container files written by avsc (an
// independent implementation) into columns, and prints what avsc decodes
// from the same file, mapped by floe's documented rules (columnar_decoder.h):
// [null, X] unions are nullable X, other unions struct<tag, field0, ...>,
// logical types (decimal, uuid, date, time, timestamps) as their values,
// maps as key/value lists. Codecs null, deflate and snappy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeAvsc, readAvsc, parseJsonExact } from '../tools/avsc_files.mjs';

const FLOE = process.env.FLOE_BIN;

const schema = {
  type: 'record', name: 'Landing', namespace: 'test', fields: [
    { name: 'id', type: 'long' },
    { name: 'small', type: 'int' },
    { name: 'ok', type: 'boolean' },
    { name: 'f', type: 'float' },
    { name: 'd', type: 'double' },
    { name: 'name', type: ['null', 'string'] },
    { name: 'raw', type: 'bytes' },
    { name: 'kind', type: { type: 'enum', name: 'Kind', symbols: ['NEW', 'OLD', 'GONE'] } },
    { name: 'code', type: { type: 'fixed', name: 'Code', size: 4 } },
    { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 12, scale: 3 } },
    { name: 'key', type: { type: 'string', logicalType: 'uuid' } },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'clock', type: { type: 'int', logicalType: 'time-millis' } },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-micros' } },
    { name: 'local', type: { type: 'long', logicalType: 'local-timestamp-millis' } },
    { name: 'tags', type: { type: 'array', items: 'string' } },
    { name: 'counts', type: { type: 'map', values: ['null', 'long'] } },
    { name: 'address', type: ['null', { type: 'record', name: 'Address', fields: [
      { name: 'city', type: 'string' }, { name: 'zip', type: ['null', 'int'] }] }] },
    { name: 'either', type: ['null', 'long', 'string', { type: 'array', items: 'int' }] },
  ],
};

// Two's complement big-endian bytes of an unscaled decimal.
function decimalBytes(unscaled) {
  let hex = (unscaled < 0n ? (1n << 64n) + unscaled : unscaled).toString(16).padStart(16, '0');
  const bytes = Buffer.from(hex, 'hex');
  let start = 0;  // minimal length, keeping the sign bit
  while (start < 7 && ((bytes[start] === 0 && bytes[start + 1] < 0x80) || (bytes[start] === 0xff && bytes[start + 1] >= 0x80))) start++;
  return bytes.subarray(start);
}

function records(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const unscaled = BigInt(i * 1234567 - 50000000);
    out.push({
      id: (1n << 50n) + BigInt(i),
      small: i * 7 - 100,
      ok: i % 2 === 0,
      f: i / 4,
      d: i === 3 ? NaN : i * 0.1,
      name: i % 4 === 0 ? null : { string: `name ${i} ✓` },
      raw: Buffer.from([i & 0xff, 0, 0xff]),
      kind: ['NEW', 'OLD', 'GONE'][i % 3],
      code: Buffer.from([1, 2, 3, i & 0xff]),
      amount: decimalBytes(unscaled),
      key: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      day: 18000 + i,
      clock: (i * 3723004) % 86400000,
      at: 1577836800000000n + BigInt(i) * 1000001n,
      local: 1577836800000n + BigInt(i) * 61001n,
      tags: Array.from({ length: i % 3 }, (_, k) => `t${k}`),
      counts: Object.fromEntries(Array.from({ length: i % 3 }, (_, k) => [`k${k}`, k === 1 ? null : { long: BigInt(i + k) }])),
      address: i % 5 === 0 ? null : { 'test.Address': { city: `c${i}`, zip: i % 2 ? { int: i } : null } },
      either: [null, { long: BigInt(i) }, { string: `s${i}` }, { array: [i, i + 1] }][i % 4],
    });
  }
  return out;
}

const pad = (n, w) => String(n).padStart(w, '0');
function isoDate(days) {
  const d = new Date(days * 86400000);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}
function isoTimestamp(value, perSecond, zone) {
  const v = BigInt(value);
  const per = BigInt(perSecond);
  const seconds = v / per;
  const fraction = v % per;
  const d = new Date(Number(seconds) * 1000);
  const digits = String(perSecond).length - 1;
  return `${isoDate(Math.floor(Number(seconds) / 86400))}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:` +
    `${pad(d.getUTCSeconds(), 2)}.${pad(fraction, digits)}${zone ? 'Z' : ''}`;
}
function decimalText(bytes, scale) {
  let v = BigInt('0x' + (bytes.length ? bytes.toString('hex') : '0'));
  if (bytes.length && bytes[0] & 0x80) v -= 1n << BigInt(bytes.length * 8);
  const negative = v < 0n;
  const digits = (negative ? -v : v).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
}

// What floe prints for avsc's value of `type` (the documented mapping), with
// numbers as their text.
function expected(type, v) {
  switch (type.typeName) {
    case 'null': return null;
    case 'boolean': case 'string': case 'enum': return v;
    case 'int': return String(v);
    case 'long': case 'abstract:long': return String(BigInt(v));
    case 'float': return { float: v };
    case 'double': return Number.isNaN(v) ? 'NaN' : { double: v };
    case 'bytes': case 'fixed': return v.toString('hex');
    case 'array': return v.map((x) => expected(type.itemsType, x));
    case 'map': return Object.entries(v).map(([key, x]) => ({ key, value: expected(type.valuesType, x) }));
    case 'record': return Object.fromEntries(type.fields.map((f) => [f.name, expected(f.type, v[f.name])]));
    case 'union:wrapped': {
      if (v === null) return null;
      const [branch, inner] = Object.entries(v)[0];
      const branches = type.types.filter((t) => t.typeName !== 'null');
      const index = branches.findIndex((t) => t.branchName === branch);
      if (type.types.length === 2) return expected(branches[index], inner);
      const out = { tag: String(index) };
      branches.forEach((t, k) => { out[`field${k}`] = k === index ? expected(t, inner) : null; });
      return out;
    }
    default: throw new Error(`unhandled avsc type ${type.typeName}`);
  }
}

// floe's printed JSON with numbers as text, floats compared by value.
function normalise(v, want) {
  if (v && typeof v === 'object' && 'number' in v) {
    if (want && typeof want === 'object' && 'float' in want) return Math.fround(Number(v.number)) === want.float ? want : v.number;
    if (want && typeof want === 'object' && 'double' in want) return Number(v.number) === want.double ? want : v.number;
    return v.number;
  }
  if (Array.isArray(v)) return v.map((x, i) => normalise(x, want?.[i]));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalise(x, want?.[k])]));
  return v;
}

test('avsc-written container files read as avsc decodes them', { skip: !FLOE && 'FLOE_BIN is not set' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-avro-files-'));
  try {
    for (const codec of ['null', 'deflate', 'snappy']) {
      const file = path.join(dir, `landing-${codec}.avro`);
      await writeAvsc(file, schema, records(120), codec, {}, { keepSchema: true });
      const decoded = await readAvsc(file);
      const printed = execFileSync(FLOE, ['file', 'cat', file], { encoding: 'utf8', maxBuffer: 64 << 20 })
        .split('\n').filter((l) => l).map(parseJsonExact);
      assert.equal(printed.length, decoded.records.length, codec);
      const fields = decoded.type.fields;
      printed.forEach((row, i) => {
        const record = decoded.records[i];
        const want = {};
        for (const f of fields) {
          const name = f.name;
          const v = record[name];
          switch (name) {
            case 'amount': want[name] = decimalText(v, 3); break;
            case 'day': want[name] = isoDate(v); break;
            case 'clock': want[name] = isoTimestamp(v, 1000, false).slice(11); break;
            case 'at': want[name] = isoTimestamp(v, 1000000, true); break;
            case 'local': want[name] = isoTimestamp(v, 1000, false); break;
            default: want[name] = expected(f.type, v);
          }
        }
        assert.deepEqual(normalise(row, want), want, `${codec} row ${i}`);
      });
      const schemaText = execFileSync(FLOE, ['file', 'schema', file], { encoding: 'utf8' });
      for (const line of ['format: avro', `codec ${codec}`, 'amount: decimal(12,3) not null', 'key: uuid not null',
        'at: timestamp[us, utc] not null', 'local: timestamp[ms] not null', 'clock: time[ms] not null',
        'either: struct<tag: int32, field0: int64, field1: string, field2: list<int32>>',
        'address: struct<city: string, zip: int32>']) {
        assert.ok(schemaText.includes(line), `${codec}: schema lacks "${line}":\n${schemaText}`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
