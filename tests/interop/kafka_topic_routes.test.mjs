// [source] topic_routes (issue 16): one Kafka topic carrying the Debezium
// change events of two tables (customers from PostgreSQL, orders from MySQL,
// as Debezium's topic-routing SMT writes them), interleaved in 3 partitions
// of the test broker (tests/tools/kafka_mock_broker.c, produced to with
// kcat), routed by source.table into one table each.
// - one --once run (customers in the Connect envelope, orders schemaless):
//   each table equals the DuckDB oracle over the producer's dump
//   (tests/tools/debezium.mjs), no key twice; a record naming an unlisted
//   table and one without source.table are in customers__dead_letter
//   (the route's first table) once each, naming the field and the value;
//   orders has no dead letters; each table's ledger ranges cover every
//   offset of every partition exactly once (per table: each reads the topic).
// - kill -9 of continuous runs at seeded random moments while they read a
//   bigger interleaved backlog, then a restart (--once): each table equals
//   the oracle, no key twice, the unrouted records dead letters once, every
//   offset committed once per table.
//
// Env: FLOE_BIN, FLOE_KAFKA_MOCK_BROKER, FLOE_KAFKA_ROUTE_KILLS (default 6),
// FLOE_KAFKA_SEED (default 20261201), FLOE_KEEP_TEMP.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startKafka, produce, highWatermark, kafkaToolsMissing } from '../tools/kafka.mjs';
import { generateChanges, encodeEvent, oracle, renderRow } from '../tools/debezium.mjs';
import { catalogOf, compareByKey, scanZoneTable, writeZoneConfig } from '../tools/landing_zones.mjs';
import { FLOE, ledgerFiles, logTail, runFloe, skipWithoutFloe, startDaemon } from '../tools/pipeline_oracle.mjs';
import { openDuckDB } from '../tools/readers.mjs';
import { makeRng } from '../tools/random_parquet.mjs';

const missing = kafkaToolsMissing();
const KILLS = Number(process.env.FLOE_KAFKA_ROUTE_KILLS ?? 6);
const SEED = Number(process.env.FLOE_KAFKA_SEED ?? 20261201);
const TOPIC = 'dbserver1.all_tables';
const PARTITIONS = 3;
const NAMESPACE = 'inventory';
const KEY = { customers: 'id', orders: 'order_id' };
const PLAIN = {
  customers: ['id', 'first_name', 'last_name', 'email', 'external_id', 'prefs', 'active', 'level', 'notes', 'phone'],
  orders: ['order_id', 'customer_id', 'status', 'quantity', 'coupon'],
};

let db;
let work;
before(async () => {
  if (FLOE && !missing) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-kafka-routes-'));
});
after(() => {
  db?.close();
  if (work && !process.env.FLOE_KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

function skipped(t) {
  if (skipWithoutFloe(t)) return true;
  if (missing) {
    t.skip(`skipped: ${missing}`);
    return true;
  }
  return false;
}

function routedConfig(dir, bootstrap, extra = '') {
  return writeZoneConfig(dir, `[source]
discovery = "kafka"
uri = "kafka://${bootstrap}"
topics = ["${TOPIC}"]
format = "json"
changes = "debezium"
topic_routes = { "${TOPIC}" = { field = "source.table", tables = ["customers", "orders"] } }
[target]
namespace = "${NAMESPACE}"
${extra}`, { name: 'routes' });
}

function said(run) {
  const tail = (s) => (s && s.length > 6000 ? `...${s.slice(-6000)}` : s ?? '');
  return `exit ${run.status}${run.signal ? ` (signal ${run.signal})` : ''}\n--- stderr\n${tail(run.stderr)}\n--- stdout\n${tail(run.stdout)}`;
}

function runOnce(config) {
  const result = spawnSync(FLOE, ['run', config, '--once'], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
  assert.equal(result.status, 0, `floe run --once did not exit 0:\n${said(result)}`);
  return result;
}

// The change events of both tables, interleaved per partition (each
// table's events keep their order), plus the unrouted records: one naming
// the table "payments", one without source.table. Produced with kcat; returns
// { dump, unrouted: [{partition, offset, why}] }.
async function produceInterleaved(bootstrap, { seed, changes, keys, formats }) {
  const rng = makeRng(seed);
  const generated = {
    customers: generateChanges('customers', { seed, keys, changes, partitions: PARTITIONS }),
    orders: generateChanges('orders', { seed: seed + 1, keys, changes, partitions: PARTITIONS }),
  };
  const dump = [];
  const unrouted = [];
  for (let partition = 0; partition < PARTITIONS; ++partition) {
    const queues = {};
    for (const name of ['customers', 'orders']) {
      const { table, events } = generated[name];
      queues[name] = [];
      for (const event of events.filter((e) => e.partition === partition)) {
        queues[name].push({ name, event, record: await encodeEvent(table, event, formats[name]) });
      }
    }
    const merged = [];
    while (queues.customers.length || queues.orders.length) {
      const pick = !queues.orders.length || (queues.customers.length && rng.next() < 0.5) ? 'customers' : 'orders';
      merged.push(queues[pick].shift());
    }
    // A change of a table the route does not list, and one without source.table.
    const sample = merged.find((m) => m.name === 'orders' && m.record.value && formats.orders === 'json-schemaless');
    const other = JSON.parse(sample.record.value);
    other.source.table = 'payments';
    const noTable = JSON.parse(sample.record.value);
    delete noTable.source.table;
    merged.splice(Math.floor(merged.length / 3), 0, { name: null, why: 'payments', record: { key: sample.record.key, value: JSON.stringify(other) } });
    merged.splice(Math.floor((2 * merged.length) / 3), 0, { name: null, why: 'no table', record: { key: sample.record.key, value: JSON.stringify(noTable) } });

    const base = await highWatermark(bootstrap, TOPIC, partition);
    await produce(bootstrap, TOPIC, partition, merged.map((m) => m.record));
    const high = await highWatermark(bootstrap, TOPIC, partition);
    assert.equal(high, base + merged.length, `${TOPIC}[${partition}]: every record produced`);
    merged.forEach((m, i) => {
      const offset = base + i;
      if (m.name == null) {
        unrouted.push({ partition, offset, why: m.why });
        return;
      }
      const table = generated[m.name].table;
      const columns = table.versions[m.event.version];
      dump.push({
        topic: TOPIC, table: m.name, partition, offset,
        key_text: JSON.stringify({ [KEY[m.name]]: m.event.key }),
        op: m.event.op, position: m.event.position,
        row_text: m.event.after == null ? null : JSON.stringify(renderRow(columns, m.event.after)),
      });
    });
  }
  return { dump, unrouted, generated };
}

async function expectedRows(dumpPath, table) {
  const rows = new Map();
  for (const { row } of await oracle(db, dumpPath, table)) {
    const picked = {};
    for (const c of PLAIN[table]) picked[c] = row[c] == null ? null : String(row[c]);
    rows.set(String(row[KEY[table]]), picked);
  }
  return rows;
}

function writeDump(file, dump) {
  fs.writeFileSync(file, dump.map((d) => JSON.stringify(d)).join('\n') + '\n');
  return file;
}

// Problems with the ledger: per routed table, every unit committed and its
// ranges cover each partition's offsets 0 .. high-1 exactly once.
function coverageProblems(config, highs) {
  const problems = [];
  const by = new Map();
  for (const f of ledgerFiles(config)) {
    const m = /^kafka:\/\/(.+)\/(\d+)\/(\d+)-(\d+)$/.exec(f.uri);
    if (!m) {
      problems.push(`ledger unit ${f.uri} is not kafka://<stream>/<partition>/<first>-<last>`);
      continue;
    }
    if (f.state !== 'committed') problems.push(`ledger unit ${f.uri} is ${f.state}${f.reason ? ` (${f.reason})` : ''}`);
    const key = `${m[1]}/${m[2]}`;
    by.set(key, [...(by.get(key) ?? []), { uri: f.uri, first: Number(m[3]), last: Number(m[4]) }]);
  }
  for (const table of ['customers', 'orders']) {
    for (let p = 0; p < PARTITIONS; ++p) {
      const key = `${TOPIC}@${table}/${p}`;
      let next = 0;
      for (const r of (by.get(key) ?? []).sort((a, b) => a.first - b.first)) {
        if (r.first > next) problems.push(`${key}: offsets ${next}-${r.first - 1} in no unit`);
        if (r.first < next) problems.push(`${key}: ${r.uri} overlaps offsets read before`);
        next = Math.max(next, r.last + 1);
      }
      if (next !== highs[p]) problems.push(`${key}: units end at ${next - 1}, the high watermark is ${highs[p]}`);
      by.delete(key);
    }
  }
  for (const key of by.keys()) problems.push(`ledger units of ${key}: not a routed table's stream`);
  return problems.slice(0, 15);
}

function tablesOf(dir) {
  const run = runFloe(['table', 'list', NAMESPACE, ...catalogOf(dir)]);
  return `${run.stdout}\n${run.stderr}`;
}

async function checkTables(dir, config, { dump, unrouted }) {
  const dumpPath = writeDump(path.join(dir, 'dump.jsonl'), dump);
  for (const table of ['customers', 'orders']) {
    const actual = scanZoneTable(dir, `${NAMESPACE}.${table}`, [KEY[table]]);
    assert.deepEqual(actual.duplicates.slice(0, 10), [], `${table}: keys twice`);
    const expected = await expectedRows(dumpPath, table);
    assert.ok(expected.size > 10, `${table}: only ${expected.size} rows expected`);
    assert.deepEqual(compareByKey(expected, actual.rows, { label: `${NAMESPACE}.${table}`, limit: 15 }), []);
  }
  const letters = scanZoneTable(dir, `${NAMESPACE}.customers__dead_letter`, ['partition', 'offset']);
  assert.deepEqual(letters.duplicates, [], 'a record twice in the dead letter table');
  const want = unrouted.map((u) => `${u.partition},${u.offset}`).sort();
  const got = [...letters.rows.values()].map((r) => `${r.partition},${r.offset}`).sort();
  assert.deepEqual(got, want, 'the unrouted records, each once, in the first table\'s dead letters');
  for (const u of unrouted) {
    const row = [...letters.rows.values()].find((r) => r.partition === String(u.partition) && r.offset === String(u.offset));
    assert.equal(row.topic, TOPIC, 'the dead letter names the real topic');
    assert.match(row.error, u.why === 'payments'
      ? /topic_routes: its field source\.table = "payments" names none of the route's tables \(customers, orders\)/
      : /topic_routes: the record has no field source\.table/, JSON.stringify(row));
    assert.match(row.error, new RegExp(`${TOPIC.replace('.', '\\.')}\\[${u.partition}\\] offset ${u.offset}`), row.error);
  }
  assert.doesNotMatch(tablesOf(dir), /orders__dead_letter/, 'unrouted records only in the first table\'s dead letters');
}

test('one topic routed by source.table: each table equals the oracle, the unrouted records are dead letters once', async (t) => {
  if (skipped(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'once-'));
  const kafka = await startKafka({ topics: [[TOPIC, PARTITIONS]] });
  try {
    const produced = await produceInterleaved(kafka.bootstrap,
      { seed: 3, changes: 300, keys: 40, formats: { customers: 'json', orders: 'json-schemaless' } });
    const highs = [];
    for (let p = 0; p < PARTITIONS; ++p) highs.push(await highWatermark(kafka.bootstrap, TOPIC, p));
    const config = routedConfig(dir, kafka.bootstrap);
    runOnce(config);
    await checkTables(dir, config, produced);
    assert.deepEqual(coverageProblems(config, highs), [], 'ledger');
    // A second run reads nothing new and changes nothing.
    runOnce(config);
    await checkTables(dir, config, produced);
  } finally {
    await kafka.stop();
  }
});

test(`routed topic: kill -9 of continuous runs (${KILLS} times), then a restart: each table equals the oracle`, async (t) => {
  if (skipped(t)) return;
  const random = makeRng(SEED).next;
  const dir = fs.mkdtempSync(path.join(work, 'kill-'));
  const kafka = await startKafka({ topics: [[TOPIC, PARTITIONS]] });
  try {
    const produced = await produceInterleaved(kafka.bootstrap,
      { seed: 7, changes: 1200, keys: 150, formats: { customers: 'json-schemaless', orders: 'json-schemaless' } });
    const highs = [];
    for (let p = 0; p < PARTITIONS; ++p) highs.push(await highWatermark(kafka.bootstrap, TOPIC, p));
    const config = routedConfig(dir, kafka.bootstrap, '[trigger]\ninterval = "1s"\nmax_records_per_batch = 150\n');
    let killed = 0;
    const delays = [];
    for (let i = 0; i < KILLS; ++i) {
      const delay = Math.floor(300 + random() * 1500);
      const daemon = startDaemon(config);
      const timer = setTimeout(() => daemon.child.kill('SIGKILL'), delay);
      const exit = await daemon.exited;
      clearTimeout(timer);
      if (exit.signal !== 'SIGKILL') assert.fail(`continuous run ${i} exited by itself: ${JSON.stringify(exit)}\n${logTail(daemon.log)}`);
      ++killed;
      delays.push(`${delay}ms`);
    }
    let committedUnderKills = 0;
    try {
      committedUnderKills = ledgerFiles(config).filter((f) => f.state === 'committed').length;
    } catch (e) {
      t.diagnostic(`floe files after the kills: ${e.message.split('\n')[0]}`);
    }
    t.diagnostic(`${killed} runs killed after ${delays.join(' ')}; units committed by them: ${committedUnderKills}`);
    runOnce(config);
    await checkTables(dir, config, produced);
    assert.deepEqual(coverageProblems(config, highs), [], 'ledger');
    assert.ok(KILLS === 0 || committedUnderKills > 0, 'no killed run got as far as a commit: the kills proved little');
  } finally {
    await kafka.stop();
  }
});
