// avsc with exact longs: Avro longs read and written as BigInt, so snapshot
// ids, row ids and sizes past 2^53 compare exactly.
import zlib from 'node:zlib';

import avro from 'avsc';

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

// A type for `schema` with BigLong longs (typeHook catches longs with attributes, which skip the registry).
export function exactAvroType(schema, { wrapUnions = false } = {}) {
  return avro.Type.forSchema(schema, {
    registry: { long: BigLong },
    wrapUnions,
    typeHook: (attrs) => (attrs === 'long' || (attrs && attrs.type === 'long') ? BigLong : undefined),
  });
}

// Every record of an Avro container file (null or deflate codec), longs as BigInt.
export function readAvroRecords(file, options = {}) {
  return new Promise((resolve, reject) => {
    const records = [];
    avro.createFileDecoder(file, {
      codecs: { null: (buf, cb) => cb(null, buf), deflate: zlib.inflateRaw },
      parseHook: (schema) => exactAvroType(schema, options),
    })
      .on('data', (r) => records.push(r))
      .on('error', reject)
      .on('end', () => resolve(records));
  });
}
