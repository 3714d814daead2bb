// Interop: floe's Avro reader and writer against avsc (an independent
// JavaScript implementation). avsc writes container files with varied schemas
// and codecs; `floe avro cat` must print what avsc decodes, and files written
// by `floe avro convert` must decode in avsc to the input records with the
// metadata kept. Also reads the Iceberg fixtures' manifests and manifest lists.
// Longs are compared exactly (avsc reads them as BigInt through a custom type).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import avro from 'avsc';

import { BigLong } from '../tools/avro_exact.mjs';
import { snappyCompress, snappyUncompress } from 'hysnappy';
import { decompress as zstdDecompress } from 'fzstd';

const FLOE = process.env.FLOE_BIN;
const SOURCE = process.env.FLOE_SOURCE_DIR ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const SHARED = process.env.FLOE_SHARED_DIR ?? path.join(SOURCE, '..', 'shared');

// --- avsc setup -------------------------------------------------------------


// typeHook catches longs with attributes ({"type":"long","logicalType":...}), which skip the registry.
const typeOf = (schema) => avro.Type.forSchema(schema, {
  registry: { long: BigLong },
  wrapUnions: true,
  typeHook: (attrs) => (attrs === 'long' || (attrs && attrs.type === 'long') ? BigLong : undefined),
});

function readVarint(buf) {
  let result = 0, shift = 0, i = 0;
  for (;;) {
    const b = buf[i++];
    result += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) return result;
    shift += 7;
  }
}

// Avro "snappy": raw snappy followed by the big-endian CRC-32 of the uncompressed bytes.
const encodeCodecs = {
  null: (buf, cb) => cb(null, buf),
  deflate: zlib.deflateRaw,
  snappy: (buf, cb) => {
    const body = Buffer.from(snappyCompress(new Uint8Array(buf)));
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(buf) >>> 0);
    cb(null, Buffer.concat([body, crc]));
  },
};
const decodeCodecs = {
  null: (buf, cb) => cb(null, buf),
  deflate: zlib.inflateRaw,
  snappy: (buf, cb) => {
    const body = buf.subarray(0, buf.length - 4);
    const out = Buffer.from(snappyUncompress(new Uint8Array(body), readVarint(body)));
    if ((zlib.crc32(out) >>> 0) !== buf.readUInt32BE(buf.length - 4)) return cb(new Error('snappy CRC mismatch'));
    cb(null, out);
  },
  zstandard: (buf, cb) => cb(null, Buffer.from(zstdDecompress(new Uint8Array(buf)))),
};

function writeAvsc(file, schema, records, codec, metadata = {}) {
  return new Promise((resolve, reject) => {
    const meta = Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, Buffer.from(v)]));
    const encoder = new avro.streams.BlockEncoder(typeOf(schema), {
      codec, codecs: encodeCodecs, blockSize: 512, metadata: meta,
    });
    const sink = fs.createWriteStream(file);
    encoder.on('error', reject);
    sink.on('error', reject);
    sink.on('close', resolve);
    encoder.pipe(sink);
    for (const r of records) encoder.write(r);
    encoder.end();
  });
}

function readAvsc(file) {
  return new Promise((resolve, reject) => {
    const records = [];
    let type, codec, meta;
    avro.createFileDecoder(file, { codecs: decodeCodecs, parseHook: typeOf })
      .on('metadata', (t, c, header) => { type = t; codec = c; meta = header.meta; })
      .on('data', (r) => records.push(r))
      .on('error', reject)
      .on('end', () => resolve({ type, codec, meta, records }));
  });
}

// Avro's parsing canonical form (full names, no attributes), via avsc.
const canonicalSchema = (text) => JSON.stringify(avro.Type.forSchema(JSON.parse(text.toString())).getSchema());

// --- floe output ------------------------------------------------------------

// A JSON parser that keeps numbers as their source text, so longs stay exact.
function parseJsonExact(text) {
  let i = 0;
  const ws = () => { while (' \t\r\n'.includes(text[i])) i++; };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++; const obj = {}; ws();
      if (text[i] === '}') { i++; return obj; }
      for (;;) {
        ws(); const key = string(); ws(); assert.equal(text[i++], ':');
        obj[key] = value(); ws();
        if (text[i] === ',') { i++; continue; }
        assert.equal(text[i++], '}'); return obj;
      }
    }
    if (c === '[') {
      i++; const arr = []; ws();
      if (text[i] === ']') { i++; return arr; }
      for (;;) {
        arr.push(value()); ws();
        if (text[i] === ',') { i++; continue; }
        assert.equal(text[i++], ']'); return arr;
      }
    }
    if (c === '"') return string();
    for (const [lit, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(lit, i)) { i += lit.length; return v; }
    }
    const m = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
    m.lastIndex = i;
    const hit = m.exec(text);
    assert.ok(hit, `bad JSON at ${i}: ${text.slice(i, i + 20)}`);
    i = m.lastIndex;
    return { number: hit[0] };
  };
  const string = () => {
    assert.equal(text[i++], '"');
    let out = '';
    for (;;) {
      const c = text[i++];
      if (c === '"') return out;
      if (c !== '\\') { out += c; continue; }
      const e = text[i++];
      if (e === 'u') { out += String.fromCharCode(parseInt(text.slice(i, i + 4), 16)); i += 4; }
      else out += { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }[e];
    }
  };
  const v = value(); ws();
  assert.equal(i, text.length);
  return v;
}

function floe(...args) {
  return execFileSync(FLOE, args, { encoding: 'utf8', maxBuffer: 256 << 20 });
}

function floeCat(file) {
  return floe('avro', 'cat', file).split('\n').filter((l) => l.length > 0).map(parseJsonExact);
}

// --- comparison -------------------------------------------------------------

// Normalizes an avsc value (per its type) to plain comparable data.
function canonAvsc(type, v) {
  switch (type.typeName) {
    case 'null': return null;
    case 'boolean': case 'string': case 'enum': return v;
    case 'int': case 'abstract:long': case 'long': return BigInt(v);
    case 'float': case 'double': return v;
    case 'bytes': case 'fixed': return v.toString('hex');
    case 'array': return v.map((x) => canonAvsc(type.itemsType, x));
    case 'map': return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonAvsc(type.valuesType, x)]));
    case 'record': case 'error':
      return Object.fromEntries(type.fields.map((f) => [f.name, canonAvsc(f.type, v[f.name])]));
    case 'union:wrapped': {
      if (v === null) return null;
      const [branch, inner] = Object.entries(v)[0];
      return canonAvsc(type.types.find((t) => t.branchName === branch), inner);
    }
    default: throw new Error(`unhandled avsc type ${type.typeName}`);
  }
}

// Normalizes floe's JSON (per the same avsc type) the same way.
function canonFloe(type, v) {
  const real = (x) => (typeof x === 'string' ? { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity }[x] : Number(x.number));
  switch (type.typeName) {
    case 'null': return v;
    case 'boolean': case 'string': case 'enum': case 'bytes': case 'fixed': return v;
    case 'int': case 'abstract:long': case 'long': return BigInt(v.number);
    case 'float': return Math.fround(real(v));
    case 'double': return real(v);
    case 'array': return v.map((x) => canonFloe(type.itemsType, x));
    case 'map': return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonFloe(type.valuesType, x)]));
    case 'record': case 'error':
      assert.deepEqual(Object.keys(v), type.fields.map((f) => f.name));
      return Object.fromEntries(type.fields.map((f) => [f.name, canonFloe(f.type, v[f.name])]));
    case 'union:wrapped': {
      // Unwrapped by floe: find the branch the value fits; null is the null branch.
      if (v === null) return null;
      const errors = [];
      for (const t of type.types) {
        if (t.typeName === 'null') continue;
        try { return canonFloe(t, v); } catch (e) { errors.push(e); }
      }
      throw errors[0] ?? new Error('no union branch');
    }
    default: throw new Error(`unhandled avsc type ${type.typeName}`);
  }
}

// floe prints unions unwrapped; compare it to avsc's decoding of the same file.
async function assertCatMatchesAvsc(file) {
  const { type, records } = await readAvsc(file);
  const ours = floeCat(file);
  assert.equal(ours.length, records.length, `${file}: record count`);
  for (let i = 0; i < records.length; i++) {
    const expected = canonAvsc(type, records[i]);
    // Union branches are ambiguous in floe's unwrapped output (e.g. int vs long),
    // so normalize floe's value with the branch avsc saw where they differ in kind.
    assert.deepStrictEqual(canonFloeGuided(type, ours[i], records[i]), expected, `${file}: record ${i}`);
  }
}

// Like canonFloe, but resolves unions with the branch avsc decoded.
function canonFloeGuided(type, v, avscValue) {
  switch (type.typeName) {
    case 'array': return v.map((x, i) => canonFloeGuided(type.itemsType, x, avscValue[i]));
    case 'map': return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonFloeGuided(type.valuesType, x, avscValue[k])]));
    case 'record': case 'error':
      assert.deepEqual(Object.keys(v), type.fields.map((f) => f.name));
      return Object.fromEntries(type.fields.map((f) => [f.name, canonFloeGuided(f.type, v[f.name], avscValue[f.name])]));
    case 'union:wrapped': {
      if (avscValue === null) return v;
      const [branch, inner] = Object.entries(avscValue)[0];
      const t = type.types.find((b) => b.branchName === branch);
      return canonFloeGuided(t, v, inner);
    }
    default: return canonFloe(type, v);
  }
}

// --- data -------------------------------------------------------------------

const kitchenSchema = {
  type: 'record', name: 'Kitchen', namespace: 'floe.test',
  fields: [
    { name: 'id', type: 'long', 'field-id': 1 },
    { name: 'flag', type: 'boolean' },
    { name: 'small', type: 'int' },
    { name: 'ratio', type: 'float' },
    { name: 'precise', type: 'double' },
    { name: 'blob', type: 'bytes' },
    { name: 'text', type: 'string' },
    { name: 'color', type: { type: 'enum', name: 'Color', symbols: ['RED', 'GREEN', 'BLUE'] } },
    { name: 'md5', type: { type: 'fixed', name: 'Md5', size: 16 } },
    { name: 'amount', type: { type: 'fixed', name: 'decimal_9_2', size: 4, logicalType: 'decimal', precision: 9, scale: 2 } },
    { name: 'big_amount', type: { type: 'bytes', logicalType: 'decimal', precision: 38, scale: 10 } },
    { name: 'uuid', type: { type: 'fixed', name: 'uuid_fixed', size: 16, logicalType: 'uuid' } },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'ts', type: { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': true } },
    { name: 'maybe_long', type: ['null', 'long'], default: null },
    { name: 'maybe_text', type: ['null', 'string', 'double'], default: null },
    { name: 'attrs', type: { type: 'map', values: ['null', 'long'] } },
    { name: 'ints', type: { type: 'array', items: 'int', 'element-id': 7 } },
    { name: 'pairs', type: ['null', { type: 'array', logicalType: 'map', items: {
      type: 'record', name: 'k117_v118', fields: [{ name: 'key', type: 'int', 'field-id': 117 }, { name: 'value', type: 'long', 'field-id': 118 }] } }], default: null },
    { name: 'inner', type: { type: 'record', name: 'Inner', fields: [{ name: 'a', type: ['null', 'Inner'], default: null }, { name: 'b', type: 'Md5' }] } },
  ],
};

function kitchenRecords(n) {
  const out = [];
  const bigs = [2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n, -(2n ** 62n) - 3n, 0n, 9158179788527662767n];
  const floats = [0.1, -0, 3.4028234663852886e38, NaN, Infinity, 1e-45, 123456.789];
  for (let i = 0; i < n; i++) {
    const md5 = Buffer.alloc(16, i);
    out.push({
      id: bigs[i % bigs.length] ^ BigInt(i % 2),
      flag: i % 2 === 0,
      small: i % 3 === 0 ? -2147483648 : 2147483647 - i,
      ratio: Math.fround(floats[i % floats.length]),
      precise: [Math.PI, -1e308, 5e-324, NaN, -Infinity, 0.30000000000000004][i % 6],
      blob: Buffer.from([i & 255, 0, 255, (i * 7) & 255]).subarray(0, i % 5),
      text: ['', 'héllo', 'emoji 🦆', 'quote " backslash \\ newline \n tab \t', '\u0001ctl', 'x'.repeat(i % 50)][i % 6],
      color: ['RED', 'GREEN', 'BLUE'][i % 3],
      md5,
      amount: Buffer.from([0xff, 0xff, 0xcf, (i * 13) & 255]),
      big_amount: Buffer.from([0x12, 0x34, i & 255]),
      uuid: Buffer.from('0123456789abcdef0123456789abcdef', 'hex'),
      day: 19000 + i,
      ts: 1700000000000000n + BigInt(i),
      maybe_long: i % 3 === 0 ? null : { long: -BigInt(i) * 1000000000000n },
      maybe_text: i % 4 === 0 ? null : i % 4 === 1 ? { string: `s${i}` } : { double: i / 7 },
      attrs: Object.fromEntries(Array.from({ length: i % 4 }, (_, k) => [`key${k}`, k === 1 ? null : { long: BigInt(k) << 40n }])),
      ints: Array.from({ length: i % 6 }, (_, k) => k - 2),
      pairs: i % 5 === 0 ? null : { array: Array.from({ length: i % 3 }, (_, k) => ({ key: 100 + k, value: BigInt(k) * 2n ** 50n })) },
      inner: { a: i % 2 ? { 'floe.test.Inner': { a: null, b: md5 } } : null, b: md5 },
    });
  }
  return out;
}

const manifestEntrySchema = JSON.parse(fs.readFileSync(path.join(SOURCE, 'tests/unit/avro/iceberg_schemas.h'), 'utf8')
  .split('kManifestEntrySchema =')[1].split(';')[0]
  .match(/R"\((.*?)\)"/gs).map((s) => s.slice(3, -2)).join(''));

function manifestEntries(n) {
  const kv = (k, v) => ({ key: k, value: v });
  return Array.from({ length: n }, (_, i) => ({
    status: i % 3,
    snapshot_id: i % 2 ? null : { long: 9158179788527662767n - BigInt(i) },
    sequence_number: i % 2 ? null : { long: BigInt(i) },
    file_sequence_number: null,
    data_file: {
      content: 0,
      file_path: `s3://bucket/warehouse/db/t/data/id_bucket=${i % 4}/part-${i}.parquet`,
      file_format: 'PARQUET',
      partition: { id_bucket: i % 4 === 3 ? null : { int: i % 4 }, ts_day: { int: 19700 + i } },
      record_count: BigInt(1000 * i + 1),
      file_size_in_bytes: BigInt(4096 + i),
      column_sizes: { array: [kv(1, 100n), kv(2, 2n ** 40n)] },
      value_counts: { array: [kv(1, BigInt(i))] },
      null_value_counts: { array: [] },
      nan_value_counts: null,
      lower_bounds: { array: [{ key: 1, value: Buffer.from([1, 0, 0, 0]) }] },
      upper_bounds: { array: [{ key: 1, value: Buffer.from([i & 255, 0, 0, 0]) }] },
      key_metadata: null,
      split_offsets: { array: [4n] },
      equality_ids: null,
      sort_order_id: { int: 0 },
      referenced_data_file: null,
    },
  }));
}

const userMetadata = {
  schema: '{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}',
  'partition-spec': '[{"name":"id_bucket","transform":"bucket[4]","source-id":1,"field-id":1000}]',
  'partition-spec-id': '0',
  'format-version': '2',
  content: 'data',
};

const skip = !FLOE ? 'FLOE_BIN is not set' : false;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-avro-interop-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

const inputs = [
  ['kitchen', kitchenSchema, kitchenRecords(60)],
  ['manifest_entry', manifestEntrySchema, manifestEntries(40)],
];

for (const [name, schema, records] of inputs) {
  for (const codec of ['null', 'deflate', 'snappy']) {
    test(`floe avro cat reads avsc's ${name} file (${codec})`, { skip }, async () => {
      const file = path.join(tmp, `${name}-${codec}.avro`);
      await writeAvsc(file, schema, records, codec, userMetadata);
      const decoded = await readAvsc(file);
      assert.equal(decoded.records.length, records.length);
      await assertCatMatchesAvsc(file);
    });

    test(`floe avro convert of avsc's ${name} file (${codec}) decodes in avsc`, { skip }, async () => {
      const file = path.join(tmp, `${name}-${codec}-src.avro`);
      await writeAvsc(file, schema, records, codec, userMetadata);
      const input = await readAvsc(file);
      for (const outCodec of ['null', 'deflate', 'snappy', 'zstd']) {
        const out = path.join(tmp, `${name}-${codec}-to-${outCodec}.avro`);
        floe('avro', 'convert', file, out, '--codec', outCodec);
        const converted = await readAvsc(out);
        assert.equal(converted.codec, outCodec === 'zstd' ? 'zstandard' : outCodec);
        assert.deepStrictEqual(converted.records.map((r) => canonAvsc(converted.type, r)),
          input.records.map((r) => canonAvsc(input.type, r)));
        for (const [key, value] of Object.entries(userMetadata)) {
          assert.equal(converted.meta[key]?.toString(), value, `metadata ${key}`);
        }
        // Same schema (avsc writes full names where floe writes short ones in the same namespace).
        assert.equal(canonicalSchema(converted.meta['avro.schema']), canonicalSchema(input.meta['avro.schema']));
        await assertCatMatchesAvsc(out);
      }
    });
  }
}

test('floe avro schema prints the writer schema and metadata', { skip }, async () => {
  const file = path.join(tmp, 'schema.avro');
  await writeAvsc(file, manifestEntrySchema, manifestEntries(2), 'deflate', userMetadata);
  const printed = JSON.parse(floe('avro', 'schema', file));
  const { meta } = await readAvsc(file);
  assert.equal(canonicalSchema(JSON.stringify(printed.schema)), canonicalSchema(meta['avro.schema']));
  assert.equal(printed.codec, 'deflate');
  for (const [key, value] of Object.entries(userMetadata)) assert.equal(printed.metadata[key], value);
});

test('floe avro cat --limit stops early', { skip }, async () => {
  const file = path.join(tmp, 'limit.avro');
  await writeAvsc(file, kitchenSchema, kitchenRecords(30), 'null');
  assert.equal(floeCat(file).length, 30);
  assert.equal(floe('avro', 'cat', file, '--limit', '7').trim().split('\n').length, 7);
});

test('floe avro cat rejects a corrupted file with a message', { skip }, async () => {
  const file = path.join(tmp, 'corrupt.avro');
  await writeAvsc(file, kitchenSchema, kitchenRecords(30), 'snappy');
  const bytes = fs.readFileSync(file);
  bytes[bytes.length - 20] ^= 0xff;  // inside the last block's CRC or data
  fs.writeFileSync(file, bytes);
  assert.throws(() => execFileSync(FLOE, ['avro', 'cat', file], { encoding: 'utf8', stdio: 'pipe' }),
    (e) => e.status === 1 && /Corruption: .*corrupt\.avro: block \d+/.test(e.stderr));
});

function findFixtures(dir) {
  const out = [];
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findFixtures(p));
    else if (entry.name.endsWith('.avro') && path.basename(dir) === 'metadata') out.push(p);
  }
  return out.sort();
}

const fixtures = findFixtures(path.join(SHARED, 'fixtures', 'iceberg'));
test('Iceberg fixture manifests and manifest lists read the same in floe and avsc', {
  skip: skip || (fixtures.length === 0 ? `no Iceberg fixtures under ${SHARED}` : false),
}, async () => {
  for (const file of fixtures) await assertCatMatchesAvsc(file);
  // Round-trip one of each through floe and back into avsc.
  for (const file of fixtures.filter((f) => /snap-|-m0\.avro$/.test(f)).slice(0, 4)) {
    const out = path.join(tmp, `fixture-${path.basename(file)}`);
    floe('avro', 'convert', file, out);
    const [a, b] = [await readAvsc(file), await readAvsc(out)];
    assert.deepStrictEqual(b.records.map((r) => canonAvsc(b.type, r)), a.records.map((r) => canonAvsc(a.type, r)), file);
    for (const key of Object.keys(a.meta)) {
      if (!key.startsWith('avro.')) assert.equal(b.meta[key]?.toString(), a.meta[key].toString(), `${file}: ${key}`);
    }
    // Iceberg Java's schema JSON comes back byte for byte (field-id, element-id, logicalType "map", ...).
    assert.equal(b.meta['avro.schema'].toString(), a.meta['avro.schema'].toString(), file);
    assert.equal(JSON.parse(floe('avro', 'schema', file)).schema.fields[0]['field-id'] !== undefined, true);
  }
});
