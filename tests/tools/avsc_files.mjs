// avsc (an independent JavaScript Avro implementation) set up for floe's
// interop tests: longs as BigInt, the container codecs (deflate, snappy with
// its CRC, zstandard to decode), file writing and reading, and a JSON parser
// that keeps numbers as their source text (floe prints longs exactly).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import zlib from 'node:zlib';
import avro from 'avsc';
import { snappyCompress, snappyUncompress } from 'hysnappy';
import { decompress as zstdDecompress } from 'fzstd';

// Reads and writes Avro longs as BigInt so values past 2^53 stay exact.
export const BigLong = avro.types.LongType.__with({
  fromBuffer: (buf) => buf.readBigInt64LE(),
  toBuffer: (n) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (v) => BigInt(v),
  toJSON: (n) => Number(n),
  isValid: (n) => typeof n === 'bigint',
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
});

// typeHook catches longs with attributes ({"type":"long","logicalType":...}), which skip the registry.
export const typeOf = (schema) => avro.Type.forSchema(schema, {
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
export const encodeCodecs = {
  null: (buf, cb) => cb(null, buf),
  deflate: zlib.deflateRaw,
  snappy: (buf, cb) => {
    const body = Buffer.from(snappyCompress(new Uint8Array(buf)));
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(buf) >>> 0);
    cb(null, Buffer.concat([body, crc]));
  },
};
export const decodeCodecs = {
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

// Writes `records` with `schema` in blocks of about 512 bytes. With
// keepSchema the header holds `schema` exactly as given: avsc otherwise
// writes its own export, which drops logicalType attributes it has no
// implementation for (BlockEncoder writes `_schema` when it is set).
export function writeAvsc(file, schema, records, codec, metadata = {}, { keepSchema = false } = {}) {
  return new Promise((resolve, reject) => {
    const meta = Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, Buffer.from(v)]));
    const encoder = new avro.streams.BlockEncoder(typeOf(schema), {
      codec, codecs: encodeCodecs, blockSize: 512, metadata: meta,
    });
    if (keepSchema) encoder._schema = schema;
    const sink = fs.createWriteStream(file);
    encoder.on('error', reject);
    sink.on('error', reject);
    sink.on('close', resolve);
    encoder.pipe(sink);
    for (const r of records) encoder.write(r);
    encoder.end();
  });
}

export function readAvsc(file) {
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
export const canonicalSchema = (text) => JSON.stringify(avro.Type.forSchema(JSON.parse(text.toString())).getSchema());

// A JSON parser that keeps numbers as their source text, so longs stay exact.
export function parseJsonExact(text) {
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
