// The Kafka test tools that phase 2's streaming tests stand on: the test
// broker (tests/tools/kafka_mock_broker.c) driven by kcat, the Debezium change
// generator and its DuckDB oracle (tests/tools/debezium.mjs), and the schema
// registry stub. Each check reads back with a tool other than the one that
// wrote: records produced through kcat are read with kcat's consumer and
// decoded with JSON.parse or avsc (with the schema fetched from the registry
// over HTTP), and the SQL oracle is checked against a hand-computed dump and
// against a plain-JS newest-wins over the generated dumps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import avro from 'avsc';
import { startKafka, produce, consume, highWatermark, lowWatermark, kafkaToolsMissing } from '../tools/kafka.mjs';
import { generateChanges, produceChanges, oracle, decimalText, timestampText, zonedTimestampText, unscaledBytes }
  from '../tools/debezium.mjs';
import { startSchemaRegistryStub } from '../tools/schema_registry_stub.mjs';
import { openDuckDB } from '../tools/readers.mjs';

const missing = kafkaToolsMissing();
const skip = missing ? `skipped: ${missing}` : false;
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'floe-kafka-tools-'));

// Newest change per key by position, then offset, in plain JS: a second
// implementation of what the SQL oracle computes.
function newestWins(dump, table) {
  const newest = new Map();
  for (const d of dump) {
    if (d.table !== table || d.op == null) continue;
    const seen = newest.get(d.key_text);
    if (!seen || d.position > seen.position || (d.position === seen.position && d.offset > seen.offset)) {
      newest.set(d.key_text, d);
    }
  }
  const columns = new Set();
  for (const d of dump) if (d.table === table && d.row_text != null) for (const c of Object.keys(JSON.parse(d.row_text))) columns.add(c);
  const filled = (row) => Object.fromEntries([...columns].map((c) => [c, c in row ? row[c] : null]));
  return [...newest.values()].filter((d) => d.op !== 'd')
    .map((d) => ({ key_text: d.key_text, row: filled(JSON.parse(d.row_text)) }))
    .sort((a, b) => Object.values(JSON.parse(a.key_text))[0] - Object.values(JSON.parse(b.key_text))[0]);
}

test('value renderings match hand-checked values', () => {
  assert.equal(decimalText(1234567n, 2), '12345.67');
  assert.equal(decimalText(-1n, 2), '-0.01');
  assert.equal(decimalText(5n, 0), '5');
  assert.equal(unscaledBytes(1234567n).toString('hex'), '12d687');
  assert.equal(unscaledBytes(-1n).toString('hex'), 'ff');
  assert.equal(unscaledBytes(128n).toString('hex'), '0080');
  assert.equal(unscaledBytes(-129n).toString('hex'), 'ff7f');
  assert.equal(unscaledBytes(0n).toString('hex'), '00');
  // 1709280930123456 us = 2024-03-01T08:15:30.123456 (date -u -d @1709280930).
  assert.equal(timestampText(1709280930123456, 1e6, false), '2024-03-01T08:15:30.123456');
  assert.equal(timestampText(-1, 1e6, true), '1969-12-31T23:59:59.999999Z');
  assert.equal(timestampText(1709280930123, 1000, false), '2024-03-01T08:15:30.123');
  assert.equal(zonedTimestampText(1709280930123456, 120, 6), '2024-03-01T10:15:30.123456+02:00');
  assert.equal(zonedTimestampText(1709280930000000, -330, 0), '2024-03-01T02:45:30-05:30');
  assert.equal(zonedTimestampText(1709280930123000, 0, 3), '2024-03-01T08:15:30.123Z');
});

test('the oracle keeps the newest change per key by position, then offset', async () => {
  const dir = tmp();
  const line = (partition, offset, key, op, position, row) => JSON.stringify({
    topic: 't', table: 'people', partition, offset, key_text: JSON.stringify({ id: key }), op, position,
    row_text: row == null ? null : JSON.stringify(row) });
  const lines = [
    line(0, 0, 1, 'c', '0010', { id: 1, name: 'a' }),
    line(0, 1, 1, 'u', '0020', { id: 1, name: 'b' }),      // key 1: the update wins
    line(1, 0, 2, 'c', '0011', { id: 2, name: 'c' }),
    line(1, 1, 2, 'd', '0021', null),
    line(1, 2, 2, null, '0021', null),                     // its tombstone: skipped
    line(0, 2, 3, 'c', '0012', { id: 3, name: 'd' }),
    line(0, 3, 3, 'd', '0022', null),
    line(0, 4, 3, 'c', '0030', { id: 3, name: 'e' }),      // key 3: re-inserted after its delete
    line(1, 3, 4, 'u', '0050', { id: 4, name: 'new' }),
    line(1, 4, 4, 'u', '0040', { id: 4, name: 'old' }),    // key 4: a late older change loses
    line(0, 5, 5, 'r', '0001', { id: 5, name: 'snap' }),
    line(0, 6, 5, 'u', '0060', { id: 5, name: 'f' }),
    line(0, 7, 5, 'u', '0060', { id: 5, name: 'g' }),      // key 5: same position, the later offset wins
    line(1, 5, 6, 'c', '0070', { id: 6, name: 'h' }),
    line(1, 6, 6, 'd', '0080', null),
    line(1, 7, 6, 'c', '0075', { id: 6, name: 'late' }),   // key 6: a late insert never resurrects it
    line(0, 8, 7, 'c', '0010', { id: 7, name: 'other' }).replace('"people"', '"other"'),
  ];
  const dump = path.join(dir, 'dump.jsonl');
  fs.writeFileSync(dump, lines.join('\n') + '\n');
  const db = await openDuckDB();
  try {
    const rows = await oracle(db, dump, 'people');
    assert.deepEqual(rows.map((r) => r.row), [
      { id: 1, name: 'b' }, { id: 3, name: 'e' }, { id: 4, name: 'new' }, { id: 5, name: 'g' }]);
  } finally {
    db.close();
  }
});

test('the test broker takes topics, faults and records from kcat', { skip }, async () => {
  const kafka = await startKafka({ brokers: 3, topics: [['t', 2]] });
  try {
    await kafka.command('topic u 4');
    await assert.rejects(kafka.command('leader nope'), /unknown command or wrong arguments/);
    await produce(kafka.bootstrap, 'u', 3, [{ key: 'a', value: Buffer.from([0, 1, 10, 255]) }, { key: 'b', value: null },
      { key: null, value: 'line\nbreak' }]);
    assert.equal(await highWatermark(kafka.bootstrap, 'u', 3), 3);
    assert.equal(await lowWatermark(kafka.bootstrap, 'u', 3), 0);
    const records = await consume(kafka.bootstrap, 'u', 3);
    assert.deepEqual(records.map((r) => [r.offset, r.key?.toString(), r.value?.toString('hex')]),
      [[0, 'a', '00010aff'], [1, 'b', undefined], [2, undefined, Buffer.from('line\nbreak').toString('hex')]]);
    // Leaders move and brokers go down and up on command.
    await kafka.command('leader t 0 2');
    await kafka.command('down 2');
    await kafka.command('up 2');
    await produce(kafka.bootstrap, 't', 0, [{ key: 'k', value: 'v' }]);
    assert.equal(await highWatermark(kafka.bootstrap, 't', 0), 1);
    await kafka.command('errors Produce 2 NOT_LEADER_FOR_PARTITION');
    await produce(kafka.bootstrap, 't', 0, [{ key: 'k2', value: 'v2' }]);  // retried by kcat
    assert.deepEqual((await consume(kafka.bootstrap, 't', 0)).map((r) => r.value.toString()), ['v', 'v2']);
  } finally {
    await kafka.stop();
  }
});

for (const [table, partitions] of [['customers', 3], ['orders', 2]]) {
  test(`Debezium ${table} changes reach the broker as JSON (with and without schemas) and Avro`, { skip }, async () => {
    const dir = tmp();
    const topics = ['json', 'schemaless', 'avro'].map((f) => [`${table}.${f}`, partitions]);
    const kafka = await startKafka({ topics });
    const registry = await startSchemaRegistryStub();
    const db = await openDuckDB();
    try {
      const generated = generateChanges(table, { seed: 11, keys: 30, changes: 250, partitions });
      const ops = {};
      for (const e of generated.events) ops[e.op ?? 'tombstone'] = (ops[e.op ?? 'tombstone'] ?? 0) + 1;
      for (const op of ['r', 'c', 'u', 'd', 'tombstone']) assert.ok(ops[op] > 0, `no ${op} events: ${JSON.stringify(ops)}`);
      assert.ok(generated.events.some((e) => e.redelivered), 'no re-delivered events');
      assert.ok(generated.events.some((e) => e.version === 1) && generated.events.some((e) => e.version === 0),
        'no schema change mid-stream');
      const reinserted = new Set();
      const deleted = new Set();
      for (const e of generated.events) {
        if (e.op === 'd') deleted.add(e.key);
        if (e.op === 'c' && deleted.has(e.key)) reinserted.add(e.key);
      }
      assert.ok(reinserted.size > 0, 'no key deleted and inserted again');

      const dumps = {};
      for (const format of ['json', 'schemaless', 'avro']) {
        const dumpPath = path.join(dir, `${format}.jsonl`);
        dumps[format] = await produceChanges(kafka.bootstrap, `${table}.${format}`, generated, {
          format: format === 'schemaless' ? 'json-schemaless' : format, registry: registry.url, dumpPath, partitions });
        assert.equal(dumps[format].length, generated.events.length);

        // Every dumped record is where the dump says, as kcat reads it back.
        const read = new Map();
        for (let p = 0; p < partitions; p++) {
          for (const r of await consume(kafka.bootstrap, `${table}.${format}`, p)) read.set(`${p}/${r.offset}`, r);
        }
        assert.equal(read.size, dumps[format].length);
        const avroTypes = new Map();
        for (const d of dumps[format]) {
          const r = read.get(`${d.partition}/${d.offset}`);
          assert.ok(r, `no record at ${d.partition}/${d.offset}`);
          if (d.op == null) {
            assert.equal(r.value, null, 'a tombstone has a null value');
            continue;
          }
          let envelope;
          if (format === 'avro') {
            assert.equal(r.value[0], 0, 'Confluent magic byte');
            const id = r.value.readUInt32BE(1);
            if (!avroTypes.has(id)) {
              const answer = await (await fetch(`${registry.url}/schemas/ids/${id}`)).json();
              avroTypes.set(id, avro.Type.forSchema(JSON.parse(answer.schema)));
            }
            envelope = avroTypes.get(id).fromBuffer(r.value.subarray(5));
          } else {
            const json = JSON.parse(r.value.toString('utf8'));
            assert.equal('schema' in json, format === 'json');
            envelope = format === 'json' ? json.payload : json;
            if (format === 'json') {
              const after = json.schema.fields.find((f) => f.field === 'after');
              assert.deepEqual(after.fields.map((f) => f.field), Object.keys(JSON.parse(d.row_text ?? 'null') ?? envelope.before));
            }
          }
          assert.equal(envelope.op, d.op);
          const position = table === 'customers' ? String(envelope.source.lsn).padStart(20, '0')
            : `${envelope.source.file.slice(-6)}:${String(envelope.source.pos).padStart(12, '0')}:000000`;
          assert.equal(position, d.position);
          if (d.row_text == null) continue;
          // The written values decode to what the dump renders.
          const row = JSON.parse(d.row_text);
          const after = envelope.after;
          const amount = table === 'customers' ? 'balance' : 'amount';
          const bytes = format === 'avro' ? after[amount] : Buffer.from(after[amount], 'base64');
          const unscaled = BigInt.asIntN(bytes.length * 8, BigInt(`0x${bytes.toString('hex')}`));
          assert.equal(decimalText(unscaled, 2), row[amount]);
          if (table === 'customers') {
            assert.equal(timestampText(after.created_at, 1e6, false), row.created_at);
            assert.equal(new Date(after.updated_at).getTime(), Date.parse(row.updated_at));
            assert.equal(after.external_id, row.external_id);
          } else {
            assert.equal(timestampText(after.order_time, 1000, false), row.order_time);
          }
        }
      }
      // The oracle is the same for every encoding, and agrees with plain JS.
      const expected = await oracle(db, path.join(dir, 'json.jsonl'), table);
      assert.ok(expected.length > 3, `only ${expected.length} rows survive`);
      assert.deepEqual(expected, newestWins(dumps.json, table));
      assert.deepEqual(await oracle(db, path.join(dir, 'avro.jsonl'), table), expected);
      assert.deepEqual(await oracle(db, path.join(dir, 'schemaless.jsonl'), table), expected);
      // Rows written after the schema change carry the new column; the
      // expected table has it for every row (null before the change).
      const newColumn = table === 'customers' ? 'phone' : 'coupon';
      const written = dumps.json.filter((d) => d.row_text != null).map((d) => [d.version, JSON.parse(d.row_text)]);
      assert.ok(written.every(([version, row]) => (newColumn in row) === (version === 1)));
      assert.ok(expected.every((r) => newColumn in r.row));
    } finally {
      db.close();
      await registry.close();
      await kafka.stop();
    }
  });
}
