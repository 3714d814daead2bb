// Debezium change streams for floe's Kafka tests, and their oracle.
//
// generateChanges(table, options) simulates a database table and the change
// events Debezium's connector emits for it: an initial snapshot (op "r"),
// then inserts, updates and deletes (c/u/d) in source-position order, each
// delete followed by a tombstone (a null value), deleted keys inserted again
// later, connector restarts that re-deliver a window of earlier events
// (at-least-once duplicates, arriving after newer changes), and a schema
// change mid-stream (a new optional column and a widened integer column).
// Two shapes: customers (PostgreSQL source: position = lsn) and orders
// (MySQL source: position = binlog file, pos, row). Values cover decimals,
// variable-scale decimals, micro/milli timestamps, zoned timestamps with
// offsets, dates, UUIDs, JSON, enums, nulls and UTF-8 text.
//
// encodeEvent(...) writes an event the way Kafka Connect's converters do:
//   "json"            the JSON converter with schemas.enable=true ({"schema", "payload"})
//   "json-schemaless" the JSON converter with schemas.enable=false (payload only)
//   "avro"            Confluent's Avro converter: magic 0, schema id, avsc-encoded datum;
//                     key and value schemas registered in the registry (stub)
// produceChanges(...) produces them to a topic with kcat (tests/tools/kafka.mjs)
// and returns the dump: one line per produced record with its topic,
// partition, offset, key, op, source position and the row image rendered as
// floe renders values (decimals with their scale, timestamps ISO-8601 with
// 3/6 fraction digits and "Z" when adjusted to UTC, dates, UUIDs, JSON text).
//
// oracle(db, dumpPath, table) is the expected table: DuckDB SQL over the
// dump — per key the change with the greatest source position, then the
// greatest offset; tombstones skipped; keys whose newest change is a delete
// absent; columns a row's schema version did not have are null. Phase 2's
// tests compare floe's tables against it.
//
// CLI: node debezium.mjs --bootstrap HOST:PORT --table customers|orders --topic T
//        [--format json|json-schemaless|avro] [--registry URL] [--seed N] [--keys N]
//        [--changes N] [--partitions N] [--dump FILE]
// prints {"records": N, "partitions": P, ...} on stdout.
import avro from 'avsc';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeRng } from './random_parquet.mjs';
import { produce, highWatermark, lowWatermark } from './kafka.mjs';

// ---------------------------------------------------------------- values

const pad = (n, width) => String(n).padStart(width, '0');

// Java's BigInteger.toByteArray: minimal big-endian two's complement.
export function unscaledBytes(value) {
  const v = BigInt(value);
  const negative = v < 0n;
  let hex = (negative ? -v - 1n : v).toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let bytes = Buffer.from(hex, 'hex');
  if (negative) bytes = Buffer.from(bytes.map((b) => ~b & 0xff));
  if (bytes.length === 0 || ((bytes[0] & 0x80) !== 0) !== negative) {
    bytes = Buffer.concat([Buffer.from([negative ? 0xff : 0x00]), bytes]);
  }
  return bytes;
}

// unscaled * 10^-scale as exact text with `scale` fraction digits (scale >= 0).
export function decimalText(unscaled, scale) {
  const v = BigInt(unscaled);
  const digits = (v < 0n ? -v : v).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}` : digits;
  return v < 0n ? `-${text}` : text;
}

// Epoch units -> "YYYY-MM-DDTHH:MM:SS.fff[fff]" (+ "Z"), floe's rendering.
export function timestampText(value, unitsPerSecond, utc) {
  const digits = unitsPerSecond === 1000 ? 3 : 6;
  const seconds = Math.floor(value / unitsPerSecond);
  const fraction = value - seconds * unitsPerSecond;
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return `${base}.${pad(fraction, digits)}${utc ? 'Z' : ''}`;
}

export const dateText = (days) => new Date(days * 86400000).toISOString().slice(0, 10);

// A ZonedTimestamp as Debezium writes it: local time at `offsetMinutes`,
// 0/3/6 fraction digits, "Z" or "+HH:MM".
export function zonedTimestampText(micros, offsetMinutes, fractionDigits) {
  const local = micros + offsetMinutes * 60 * 1e6;
  const seconds = Math.floor(local / 1e6);
  const fraction = pad(local - seconds * 1e6, 6).slice(0, fractionDigits);
  let text = new Date(seconds * 1000).toISOString().slice(0, 19);
  if (fractionDigits > 0) text += `.${fraction}`;
  if (offsetMinutes === 0) return `${text}Z`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${text}${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
}

function uuid(rng) {
  const hex = Array.from({ length: 32 }, () => rng.int(16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

const kFirstNames = ['Zoë', 'Łukasz', 'Sørina', '李', 'Ахмед', "Seán O'Brien", 'José', 'Ana', 'Émile', 'Ngozi', '佐藤',
  'Øyvind', 'Mía', 'Zhang Wěi', 'Ünal'];
const kLastNames = ['Müller', 'Nguyễn', 'Kowalski', 'Dubois', 'Smith', 'Γεωργίου', 'García', 'Ivanova', 'Okafor',
  'Tanaka', "D'Angelo", 'Ståhl'];
const kNow = Date.UTC(2024, 2, 1, 8, 0, 0) * 1000;  // micros, 2024-03-01T08:00:00Z

// ---------------------------------------------------------------- tables

// A column: its Connect schema (JSON converter form, without "field"), its
// Avro type, how the JSON converter and the Avro converter write a value,
// how floe renders it, and a generator.
const col = (name, def) => ({ name, optional: true, ...def });

const decimalColumn = (name, precision, scale, gen, optional = true) => col(name, {
  optional,
  connect: { type: 'bytes', name: 'org.apache.kafka.connect.data.Decimal', version: 1,
    parameters: { scale: String(scale), 'connect.decimal.precision': String(precision) } },
  avro: { type: 'bytes', scale, precision, 'connect.version': 1,
    'connect.parameters': { scale: String(scale), 'connect.decimal.precision': String(precision) },
    'connect.name': 'org.apache.kafka.connect.data.Decimal', logicalType: 'decimal' },
  json: (v) => unscaledBytes(v).toString('base64'),
  avroValue: (v) => unscaledBytes(v),
  text: (v) => decimalText(v, scale),
  gen,
});

const stringColumn = (name, gen, optional = true) => col(name, {
  optional, connect: { type: 'string' }, avro: 'string', json: (v) => v, avroValue: (v) => v, text: (v) => v, gen,
});

function customersTable() {
  const columns = [
    col('id', { optional: false, connect: { type: 'int32' }, avro: 'int', json: (v) => v, avroValue: (v) => v,
      text: (v) => v }),
    stringColumn('first_name', (rng) => rng.pick(kFirstNames), false),
    stringColumn('last_name', (rng) => rng.pick(kLastNames), false),
    stringColumn('email', (rng, id) => `user${id}.${rng.int(1000)}@example.com`),
    decimalColumn('balance', 12, 2, (rng) => BigInt(rng.int(2000001) - 1000000) * BigInt(rng.int(100) + 1)),
    col('score', {
      connect: { type: 'struct', name: 'io.debezium.data.VariableScaleDecimal', version: 1,
        doc: 'Variable scaled decimal',
        fields: [{ type: 'int32', optional: false, field: 'scale' }, { type: 'bytes', optional: false, field: 'value' }] },
      avro: { type: 'record', name: 'VariableScaleDecimal', namespace: 'io.debezium.data',
        fields: [{ name: 'scale', type: 'int' }, { name: 'value', type: 'bytes' }],
        'connect.doc': 'Variable scaled decimal', 'connect.version': 1,
        'connect.name': 'io.debezium.data.VariableScaleDecimal' },
      json: (v) => ({ scale: v.scale, value: unscaledBytes(v.unscaled).toString('base64') }),
      avroValue: (v) => ({ scale: v.scale, value: unscaledBytes(v.unscaled) }),
      text: (v) => decimalText(v.unscaled, v.scale),
      gen: (rng) => (rng.int(5) === 0 ? null
        : { scale: rng.int(6), unscaled: BigInt(rng.int(1e9)) * BigInt(rng.int(1e6)) - 123456789n }),
    }),
    col('created_at', {
      connect: { type: 'int64', name: 'io.debezium.time.MicroTimestamp', version: 1 },
      avro: { type: 'long', 'connect.version': 1, 'connect.name': 'io.debezium.time.MicroTimestamp' },
      json: (v) => v, avroValue: (v) => v, text: (v) => timestampText(v, 1e6, false),
      gen: (rng) => kNow - rng.int(5 * 365 * 86400) * 1e6 - rng.int(1e6),
    }),
    col('birth_date', {
      connect: { type: 'int32', name: 'io.debezium.time.Date', version: 1 },
      avro: { type: 'int', 'connect.version': 1, 'connect.name': 'io.debezium.time.Date' },
      json: (v) => v, avroValue: (v) => v, text: dateText,
      gen: (rng) => (rng.int(6) === 0 ? null : rng.int(40000) - 10000),
    }),
    col('updated_at', {
      connect: { type: 'string', name: 'io.debezium.time.ZonedTimestamp', version: 1 },
      avro: { type: 'string', 'connect.version': 1, 'connect.name': 'io.debezium.time.ZonedTimestamp' },
      json: (v) => v.text, avroValue: (v) => v.text, text: (v) => timestampText(v.micros, 1e6, true),
      gen: (rng) => {
        const digits = rng.pick([0, 3, 6]);
        const unit = digits === 0 ? 1e6 : digits === 3 ? 1e3 : 1;
        const micros = Math.floor((kNow - rng.int(1e6) * 1e6 - rng.int(1e6)) / unit) * unit;
        const offset = rng.pick([0, 120, -330, 345, -480, 60]);
        return { micros, text: zonedTimestampText(micros, offset, digits) };
      },
    }),
    col('external_id', {
      connect: { type: 'string', name: 'io.debezium.data.Uuid', version: 1 },
      avro: { type: 'string', 'connect.version': 1, 'connect.name': 'io.debezium.data.Uuid' },
      json: (v) => v, avroValue: (v) => v, text: (v) => v, gen: uuid,
    }),
    col('prefs', {
      connect: { type: 'string', name: 'io.debezium.data.Json', version: 1 },
      avro: { type: 'string', 'connect.version': 1, 'connect.name': 'io.debezium.data.Json' },
      json: (v) => v, avroValue: (v) => v, text: (v) => v,
      gen: (rng) => (rng.int(4) === 0 ? null
        : JSON.stringify({ theme: rng.pick(['dark', 'light']), langs: ['en', rng.pick(['fr', 'zh', 'ру'])] })),
    }),
    col('active', { connect: { type: 'boolean' }, avro: 'boolean', json: (v) => v, avroValue: (v) => v,
      text: (v) => v, gen: (rng) => rng.int(2) === 1 }),
    col('level', { connect: { type: 'int16' }, avro: { type: 'int', 'connect.type': 'int16' }, json: (v) => v,
      avroValue: (v) => v, text: (v) => v, gen: (rng) => rng.int(30000) }),
    stringColumn('notes', (rng) => (rng.int(3) === 0 ? null : rng.pick(['VIP', 'line1\nline2', '"quoted"', '✓ ok', '']))),
  ];
  // Version 2: `level` widened to int32 (now beyond int16), a new optional `phone`.
  const v2 = columns.map((c) => (c.name !== 'level' ? c : {
    ...c, connect: { type: 'int32' }, avro: 'int', gen: (rng) => 30000 + rng.int(1e6) }));
  v2.push(stringColumn('phone', (rng) => (rng.int(2) === 0 ? null : `+44 20 ${pad(rng.int(1e8), 8)}`)));
  return { name: 'customers', server: 'dbserver1', db: 'inventory', connector: 'postgresql', versions: [columns, v2] };
}

function ordersTable() {
  const columns = [
    col('order_id', { optional: false, connect: { type: 'int64' }, avro: 'long', json: (v) => v, avroValue: (v) => v,
      text: (v) => v }),
    col('customer_id', { connect: { type: 'int32' }, avro: 'int', json: (v) => v, avroValue: (v) => v, text: (v) => v,
      gen: (rng) => 1 + rng.int(500) }),
    decimalColumn('amount', 10, 2, (rng) => BigInt(rng.int(10000000)), false),
    col('order_time', {
      connect: { type: 'int64', name: 'io.debezium.time.Timestamp', version: 1 },
      avro: { type: 'long', 'connect.version': 1, 'connect.name': 'io.debezium.time.Timestamp' },
      json: (v) => v, avroValue: (v) => v, text: (v) => timestampText(v, 1000, false),
      gen: (rng) => Math.floor(kNow / 1000) - rng.int(86400 * 1000 * 30),
    }),
    col('weight', { connect: { type: 'double' }, avro: 'double', json: (v) => v, avroValue: (v) => v, text: (v) => v,
      gen: (rng) => (rng.int(5) === 0 ? null : Math.round(rng.next() * 1e5) / 100) }),
    col('status', {
      connect: { type: 'string', name: 'io.debezium.data.Enum', version: 1,
        parameters: { allowed: 'pending,shipped,delivered,cancelled' } },
      avro: { type: 'string', 'connect.version': 1, 'connect.parameters': { allowed: 'pending,shipped,delivered,cancelled' },
        'connect.name': 'io.debezium.data.Enum' },
      json: (v) => v, avroValue: (v) => v, text: (v) => v,
      gen: (rng) => rng.pick(['pending', 'shipped', 'delivered', 'cancelled']),
    }),
    col('shipped_on', {
      connect: { type: 'int32', name: 'io.debezium.time.Date', version: 1 },
      avro: { type: 'int', 'connect.version': 1, 'connect.name': 'io.debezium.time.Date' },
      json: (v) => v, avroValue: (v) => v, text: dateText,
      gen: (rng) => (rng.int(3) === 0 ? null : 19700 + rng.int(100)),
    }),
    col('quantity', { connect: { type: 'int16' }, avro: { type: 'int', 'connect.type': 'int16' }, json: (v) => v,
      avroValue: (v) => v, text: (v) => v, gen: (rng) => 1 + rng.int(100) }),
  ];
  const v2 = columns.map((c) => (c.name !== 'quantity' ? c : {
    ...c, connect: { type: 'int32' }, avro: 'int', gen: (rng) => 40000 + rng.int(1e6) }));
  v2.push(stringColumn('coupon', (rng) => (rng.int(2) === 0 ? null : `SAVE${rng.int(50)}`)));
  return { name: 'orders', server: 'mysqlserver', db: 'shop', connector: 'mysql', versions: [columns, v2] };
}

export const TABLES = { customers: customersTable, orders: ordersTable };

// ---------------------------------------------------------------- changes

const keyColumn = (columns) => columns[0];

// A stable partition per key, as Kafka's key hashing gives.
function partitionOf(key, partitions) {
  let h = 2166136261;
  for (const c of String(key)) h = Math.imul(h ^ c.codePointAt(0), 16777619) >>> 0;
  return h % partitions;
}

function makeRow(rng, columns, key) {
  const row = {};
  for (const c of columns) row[c.name] = c === keyColumn(columns) ? key : c.gen(rng, key);
  return row;
}

// The change events of one table, in the order the connector emits them.
// Each: {key, op ('r'|'c'|'u'|'d'|null for a tombstone), before, after,
// position (sortable text), source (the source block's fields), ts_ms,
// version (0 or 1: the schema in force), partition, redelivered}.
export function generateChanges(tableName, {
  seed = 1, keys = 40, changes = 300, partitions = 3, snapshot = true, redeliveryRate = 0.03,
  schemaChangeAt = 0.5, tombstones = true,
} = {}) {
  const table = TABLES[tableName]();
  const rng = makeRng(seed);
  const events = [];
  const live = new Map();  // key -> row
  let version = 0;
  // Source positions: PostgreSQL lsn, or MySQL binlog file/pos/row.
  let lsn = 24023128 + rng.int(1000);
  let file = 3;
  let pos = 154;
  let tsMs = Math.floor(kNow / 1000) - 3600 * 1000;
  const nextPosition = () => {
    tsMs += 1 + rng.int(500);
    if (table.connector === 'postgresql') {
      lsn += 8 + rng.int(400);
      return { position: pad(lsn, 20), source: { lsn, txId: 500 + Math.floor(lsn / 1000), ts_ms: tsMs } };
    }
    if (rng.int(80) === 0) {
      file += 1;
      pos = 4;
    }
    pos += 100 + rng.int(3000);
    return { position: `${pad(file, 6)}:${pad(pos, 12)}:${pad(0, 6)}`,
      source: { file: `mysql-bin.${pad(file, 6)}`, pos, row: 0, server_id: 223344, ts_ms: tsMs } };
  };
  const emit = (event) => {
    const e = { ...event, version, partition: partitionOf(event.key, partitions), redelivered: false };
    events.push(e);
    if (e.op === 'd' && tombstones) {
      events.push({ ...e, op: null, before: null, after: null });
    }
  };

  let nextKey = 1;
  if (snapshot) {
    const snap = nextPosition();
    const initial = Math.max(1, Math.floor(keys / 2));
    for (let i = 0; i < initial; i++) {
      const key = nextKey++;
      const row = makeRow(rng, table.versions[version], key);
      live.set(key, row);
      emit({ key, op: 'r', before: null, after: row, ...snap,
        source: { ...snap.source, snapshot: i === initial - 1 ? 'last' : 'true' }, ts_ms: snap.source.ts_ms });
    }
  }
  for (let i = 0; i < changes; i++) {
    if (version === 0 && i >= Math.floor(changes * schemaChangeAt) && schemaChangeAt < 1) version = 1;
    const at = nextPosition();
    const existing = [...live.keys()];
    const choice = rng.next();
    let key;
    if (existing.length === 0 || choice < 0.3) {
      // An insert: a new key, or one deleted earlier coming back.
      key = nextKey <= keys && (rng.int(3) > 0 || nextKey === 1) ? nextKey++ : 1 + rng.int(Math.max(1, nextKey - 1));
      if (live.has(key)) key = nextKey <= keys ? nextKey++ : key;
    } else {
      key = rng.pick(existing);
    }
    const columns = table.versions[version];
    if (!live.has(key)) {
      const row = makeRow(rng, columns, key);
      live.set(key, row);
      emit({ key, op: 'c', before: null, after: row, ...at, ts_ms: at.source.ts_ms });
    } else if (choice < 0.9) {
      const before = live.get(key);
      const after = makeRow(rng, columns, key);
      live.set(key, after);
      emit({ key, op: 'u', before, after, ...at, ts_ms: at.source.ts_ms });
    } else {
      const before = live.get(key);
      live.delete(key);
      emit({ key, op: 'd', before, after: null, ...at, ts_ms: at.source.ts_ms });
    }
    // A connector restart: a window of recent events is delivered again.
    if (rng.next() < redeliveryRate && events.length > 3) {
      const window = events.slice(events.length - 1 - rng.int(Math.min(6, events.length - 1)));
      for (const e of window) events.push({ ...e, redelivered: true });
    }
  }
  return { table, events };
}

// ---------------------------------------------------------------- encoding

const topicOf = (table) => `${table.server}.${table.db}.${table.name}`;

function connectRowSchema(table, columns, name) {
  return { type: 'struct', optional: true, name,
    fields: columns.map((c) => ({ ...c.connect, optional: c.optional, field: c.name })) };
}

function sourceConnectSchema(table) {
  const common = [
    { type: 'string', optional: false, field: 'version' },
    { type: 'string', optional: false, field: 'connector' },
    { type: 'string', optional: false, field: 'name' },
    { type: 'int64', optional: false, field: 'ts_ms' },
    { type: 'string', optional: true, name: 'io.debezium.data.Enum', version: 1,
      parameters: { allowed: 'true,last,false,incremental' }, default: 'false', field: 'snapshot' },
    { type: 'string', optional: false, field: 'db' },
  ];
  const specific = table.connector === 'postgresql' ? [
    { type: 'string', optional: false, field: 'schema' },
    { type: 'string', optional: false, field: 'table' },
    { type: 'int64', optional: true, field: 'txId' },
    { type: 'int64', optional: true, field: 'lsn' },
  ] : [
    { type: 'string', optional: true, field: 'table' },
    { type: 'int64', optional: false, field: 'server_id' },
    { type: 'string', optional: false, field: 'file' },
    { type: 'int64', optional: false, field: 'pos' },
    { type: 'int32', optional: false, field: 'row' },
  ];
  return { type: 'struct', optional: false, name: `io.debezium.connector.${table.connector}.Source`,
    fields: [...common, ...specific], field: 'source' };
}

// The Connect schemas of the key and the envelope for schema version `version`.
export function connectSchemas(table, version) {
  const columns = table.versions[version];
  const base = topicOf(table);
  const key = keyColumn(columns);
  const keySchema = { type: 'struct', optional: false, name: `${base}.Key`,
    fields: [{ ...key.connect, optional: false, field: key.name }] };
  const row = connectRowSchema(table, columns, `${base}.Value`);
  const valueSchema = { type: 'struct', optional: false, name: `${base}.Envelope`, version: 1, fields: [
    { ...row, field: 'before' },
    { ...row, field: 'after' },
    sourceConnectSchema(table),
    { type: 'string', optional: false, field: 'op' },
    { type: 'int64', optional: true, field: 'ts_ms' },
  ] };
  return { keySchema, valueSchema };
}

const avroOptional = (type) => ['null', type];

// The Avro schemas (Confluent's converter form) of the key and the envelope.
export function avroSchemas(table, version) {
  const columns = table.versions[version];
  const base = topicOf(table);
  const key = keyColumn(columns);
  const keySchema = { type: 'record', name: 'Key', namespace: base, 'connect.name': `${base}.Key`,
    fields: [{ name: key.name, type: key.avro }] };
  const value = { type: 'record', name: 'Value', namespace: base, 'connect.name': `${base}.Value`,
    fields: columns.map((c) => (c.optional
      ? { name: c.name, type: avroOptional(c.avro), default: null } : { name: c.name, type: c.avro })) };
  const source = sourceConnectSchema(table);
  const avroOf = (t) => ({ int32: 'int', int64: 'long', string: 'string' }[t]);
  const sourceRecord = { type: 'record', name: 'Source', namespace: `io.debezium.connector.${table.connector}`,
    'connect.name': source.name,
    fields: source.fields.map((f) => {
      let type = avroOf(f.type);
      if (f.name === 'io.debezium.data.Enum') {
        type = { type: 'string', 'connect.version': 1, 'connect.parameters': f.parameters,
          'connect.default': 'false', 'connect.name': 'io.debezium.data.Enum' };
      }
      return f.optional ? { name: f.field, type: avroOptional(type), default: null } : { name: f.field, type };
    }) };
  const valueSchema = { type: 'record', name: 'Envelope', namespace: base, 'connect.version': 1,
    'connect.name': `${base}.Envelope`, fields: [
      { name: 'before', type: avroOptional(value), default: null },
      { name: 'after', type: avroOptional('Value'), default: null },
      { name: 'source', type: sourceRecord },
      { name: 'op', type: 'string' },
      { name: 'ts_ms', type: avroOptional('long'), default: null },
    ] };
  return { keySchema, valueSchema };
}

function sourceBlock(table, event) {
  const common = { version: '2.1.2.Final', connector: table.connector, name: table.server, ts_ms: event.source.ts_ms,
    snapshot: event.source.snapshot ?? 'false', db: table.db };
  if (table.connector === 'postgresql') {
    return { ...common, schema: 'public', table: table.name, txId: event.source.txId, lsn: event.source.lsn };
  }
  return { ...common, table: table.name, server_id: event.source.server_id, file: event.source.file,
    pos: event.source.pos, row: event.source.row };
}

function rowValue(columns, row, encode) {
  if (row == null) return null;
  const out = {};
  for (const c of columns) {
    const v = row[c.name];
    out[c.name] = v == null ? null : encode(c, v);
  }
  return out;
}

// What a row image of the event's schema version holds, rendered as floe renders it.
export function renderRow(columns, row) {
  if (row == null) return null;
  const out = {};
  for (const c of columns) out[c.name] = row[c.name] == null ? null : c.text(row[c.name]);
  return out;
}

const confluentFrame = (id, datum) => {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(id, 1);
  return Buffer.concat([header, datum]);
};

// Registers (once per table and version) and returns the Avro types and schema ids.
async function avroCodec(registry, table, version, topic, cache) {
  const cacheKey = `${topic}/${version}`;
  if (cache.has(cacheKey)) return cache.get(cacheKey);
  const { keySchema, valueSchema } = avroSchemas(table, version);
  const register = async (subject, schema) => {
    const response = await fetch(`${registry}/subjects/${encodeURIComponent(subject)}/versions`, {
      method: 'POST', headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ schema: JSON.stringify(schema) }),
    });
    if (!response.ok) throw new Error(`registering ${subject}: HTTP ${response.status}`);
    return (await response.json()).id;
  };
  const codec = {
    keyId: await register(`${topic}-key`, keySchema),
    valueId: await register(`${topic}-value`, valueSchema),
    keyType: avro.Type.forSchema(keySchema),
    valueType: avro.Type.forSchema(valueSchema),
  };
  cache.set(cacheKey, codec);
  return codec;
}

// The Kafka key and value bytes of `event` in `format`.
export async function encodeEvent(table, event, format, { registry, topic, cache = new Map() } = {}) {
  const columns = table.versions[event.version];
  const key = keyColumn(columns);
  const keyPayload = { [key.name]: event.key };
  const envelope = (encode) => ({
    before: rowValue(columns, event.before, encode),
    after: rowValue(columns, event.after, encode),
    source: sourceBlock(table, event),
    op: event.op,
    ts_ms: event.ts_ms,
  });
  if (format === 'avro') {
    const codec = await avroCodec(registry, table, event.version, topic, cache);
    const keyBytes = confluentFrame(codec.keyId, codec.keyType.toBuffer(keyPayload));
    if (event.op == null) return { key: keyBytes, value: null };
    return { key: keyBytes, value: confluentFrame(codec.valueId, codec.valueType.toBuffer(envelope((c, v) => c.avroValue(v)))) };
  }
  const withSchema = format === 'json';
  const { keySchema, valueSchema } = withSchema ? connectSchemas(table, event.version) : {};
  const wrap = (schema, payload) => JSON.stringify(withSchema ? { schema, payload } : payload);
  const keyText = wrap(keySchema, keyPayload);
  if (event.op == null) return { key: keyText, value: null };
  return { key: keyText, value: wrap(valueSchema, envelope((c, v) => c.json(v))) };
}

// Produces the events of generateChanges(...) to `topic` (which must exist
// with `partitions` partitions and hold nothing yet) and returns the dump
// lines; writes them as JSON lines to `dumpPath` when given.
export async function produceChanges(bootstrap, topic, generated, { format = 'json', registry, dumpPath, partitions = 3 } = {}) {
  const { table, events } = generated;
  const cache = new Map();
  const byPartition = new Map();
  for (const event of events) {
    if (event.partition >= partitions) throw new Error('event partition beyond the topic');
    const records = byPartition.get(event.partition) ?? [];
    records.push({ event, record: await encodeEvent(table, event, format, { registry, topic, cache }) });
    byPartition.set(event.partition, records);
  }
  const dump = [];
  for (const [partition, records] of [...byPartition.entries()].sort((a, b) => a[0] - b[0])) {
    const base = await highWatermark(bootstrap, topic, partition);
    await produce(bootstrap, topic, partition, records.map((r) => r.record));
    const high = await highWatermark(bootstrap, topic, partition);
    if (high !== base + records.length) {
      throw new Error(`${topic}[${partition}]: produced ${records.length} records, watermark moved ${base} -> ${high}`);
    }
    if ((await lowWatermark(bootstrap, topic, partition)) > base) {
      throw new Error(`${topic}[${partition}]: the test broker dropped records (more than ~5 MB in a partition)`);
    }
    records.forEach(({ event }, i) => {
      dump.push({
        topic, table: table.name, partition, offset: base + i,
        key_text: JSON.stringify({ [keyColumn(table.versions[0]).name]: event.key }),
        op: event.op, position: event.position, version: event.version, redelivered: event.redelivered,
        row_text: event.after == null ? null : JSON.stringify(renderRow(table.versions[event.version], event.after)),
      });
    });
  }
  if (dumpPath) fs.writeFileSync(dumpPath, dump.map((d) => JSON.stringify(d)).join('\n') + '\n');
  return dump;
}

// ---------------------------------------------------------------- oracle

// The expected rows of `table` from a dump file: [{key_text, row}] sorted by key.
export async function oracle(db, dumpPath, table) {
  const quoted = (s) => `'${String(s).replace(/'/g, "''")}'`;
  const rows = await db.all(`
    WITH changes AS (
      SELECT * FROM read_json(${quoted(dumpPath)}, format = 'newline_delimited', columns = {
        topic: 'VARCHAR', "table": 'VARCHAR', "partition": 'INTEGER', "offset": 'BIGINT', key_text: 'VARCHAR',
        op: 'VARCHAR', position: 'VARCHAR', row_text: 'VARCHAR'})
      WHERE op IS NOT NULL AND "table" = ${quoted(table)}
    ), newest AS (
      SELECT *, row_number() OVER (PARTITION BY key_text ORDER BY position DESC, "offset" DESC) AS rank FROM changes
    )
    SELECT key_text, row_text FROM newest WHERE rank = 1 AND op <> 'd'`);
  // The table holds every column any schema version had: rows written before
  // a column was added read it as null.
  const columns = (await db.all(`
    SELECT name FROM (
      SELECT unnest(json_keys(row_text)) AS name, "offset" AS o
      FROM read_json(${quoted(dumpPath)}, format = 'newline_delimited',
        columns = {"table": 'VARCHAR', "offset": 'BIGINT', row_text: 'VARCHAR'})
      WHERE row_text IS NOT NULL AND "table" = ${quoted(table)})
    GROUP BY name ORDER BY min(o), name`)).map((c) => c.name);
  const out = rows.map((r) => {
    const row = JSON.parse(r.row_text);
    for (const name of columns) if (!(name in row)) row[name] = null;
    return { key_text: r.key_text, row };
  });
  const keyOf = (r) => Object.values(JSON.parse(r.key_text))[0];
  return out.sort((a, b) => keyOf(a) - keyOf(b));
}

// ---------------------------------------------------------------- CLI

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const table = option('table', 'customers');
  const partitions = Number(option('partitions', '3'));
  const generated = generateChanges(table, {
    seed: Number(option('seed', '1')), keys: Number(option('keys', '40')),
    changes: Number(option('changes', '300')), partitions,
  });
  const topic = option('topic', topicOf(generated.table));
  const dump = await produceChanges(option('bootstrap'), topic, generated, {
    format: option('format', 'json'), registry: option('registry'), dumpPath: option('dump'), partitions,
  });
  const ops = {};
  for (const d of dump) ops[d.op ?? 'tombstone'] = (ops[d.op ?? 'tombstone'] ?? 0) + 1;
  process.stdout.write(`${JSON.stringify({ topic, records: dump.length, partitions, ops })}\n`);
}
