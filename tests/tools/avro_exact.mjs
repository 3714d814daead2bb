// avsc with exact longs: Avro longs read and written as BigInt, so snapshot
// ids, row ids and sizes past 2^53 compare exactly.
import zlib from 'node:zlib';

import avro from 'avsc';

// One exact-long type for every avsc user: tests/tools/avsc_files.mjs.
import { BigLong } from './avsc_files.mjs';

export { BigLong };

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
