// Scale-out of a Kafka pipeline: three `floe run` workers share six topics
// (one target table each) through a PostgreSQL ledger and catalog, while the
// topics keep receiving Debezium changes. One worker is killed with SIGKILL,
// another is SIGSTOPped past [state] lease_timeout and woken. A table moves
// between workers with its stream positions, which live in the shared
// ledger and in the table's own snapshots: at the end every table equals the
// DuckDB oracle over the produced records (newest source position wins,
// deletes absent), no key is twice in a table, every offset of every
// partition is in exactly one committed ledger unit, no batch id is in two
// snapshots, and every ingest and maintenance snapshot carries a
// floe.lease-epoch that never decreases along the table's history.
// Skipped without FLOE_TEST_PG_URI (scripts/test.sh starts a server) or the
// Kafka tools (the test broker, kcat).
//
// Env: FLOE_BIN (required), FLOE_TEST_PG_URI, FLOE_KAFKA_MOCK_BROKER.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startKafka, highWatermark, kafkaToolsMissing } from '../tools/kafka.mjs';
import { generateChanges, produceChanges, oracle } from '../tools/debezium.mjs';
import { compareByKey, rowsByKeyFromScanCsv } from '../tools/landing_zones.mjs';
import { FLOE, ledgerFiles, logTail, runFloe, runFloeOk, startDaemon } from '../tools/pipeline_oracle.mjs';
import { openDuckDB } from '../tools/readers.mjs';

const PG_URI = process.env.FLOE_TEST_PG_URI ?? '';
const missing = kafkaToolsMissing();
const LEASE_TIMEOUT_MS = 3000;
const INTERVAL_MS = 500;
const NAMESPACE = 'inventory';
// Six topics, each its own table (the topic's last segment): three of the
// PostgreSQL-shaped customers (3 partitions), three of the MySQL-shaped orders (2).
const TOPICS = [1, 2, 3].flatMap((n) => [
  { topic: `dbserver1.inventory.customers_${n}`, table: `customers_${n}`, shape: 'customers', partitions: 3, seed: n },
  { topic: `mysqlserver.shop.orders_${n}`, table: `orders_${n}`, shape: 'orders', partitions: 2, seed: 10 + n },
]);
const KEY = { customers: 'id', orders: 'order_id' };
const PLAIN = {
  customers: ['id', 'first_name', 'last_name', 'email', 'external_id', 'prefs', 'active', 'level', 'notes', 'phone'],
  orders: ['order_id', 'customer_id', 'status', 'quantity', 'coupon'],
};
// The changes of each topic go out in this many parts: one before the workers
// start, the others while they run (one with each fault).
const PARTS = 4;

let db;
let work;
before(async () => {
  if (FLOE && PG_URI && !missing) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-kafka-workers-'));
});
after(() => {
  db?.close();
  if (work && !process.env.FLOE_KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const workerIdOf = (log) => /scale-out: worker (\S+) joined/.exec(log)?.[1];

async function waitFor(what, predicate, timeoutMs, workers) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}:\n${workers.map((w) => `--- ${w.name}\n${logTail(w.daemon.log, 40)}`).join('\n')}`);
}

function pipelineConfig(dir, name, bootstrap, label) {
  const file = path.join(dir, `pipeline-${label}.toml`);
  fs.writeFileSync(file, `name = "${name}"
[source]
discovery = "kafka"
uri = "kafka://${bootstrap}"
topics = [${TOPICS.map((t) => `"${t.topic}"`).join(', ')}]
format = "json"
changes = "debezium"
[catalog]
type = "sql"
uri = "${PG_URI}"
name = "${name}"
warehouse = "${path.join(dir, 'warehouse')}"
[target]
namespace = "${NAMESPACE}"
[state]
dir = "${path.join(dir, `state-${label}`)}"
uri = "${PG_URI}"
lease_timeout = "${LEASE_TIMEOUT_MS}ms"
[trigger]
interval = "${INTERVAL_MS}ms"
max_records_per_batch = 120
# Maintenance every third commit, so compactions run among the takeovers.
[maintenance]
compact_every = 3
min_input_files = 2
`);
  return file;
}

// The ledger's Kafka units: { uri, state, topic, partition, first, last }.
function kafkaUnits(config) {
  return ledgerFiles(config).map((f) => {
    const m = /^kafka:\/\/(.+)\/(\d+)\/(\d+)-(\d+)$/.exec(f.uri);
    return { uri: f.uri, state: f.state, reason: f.reason, parsed: !!m,
      topic: m?.[1], partition: m && Number(m[2]), first: m && Number(m[3]), last: m && Number(m[4]) };
  });
}

// Problems with the ledger against `marks` (topic/partition -> high
// watermark): committed ranges cover 0 .. watermark-1 exactly once.
function coverageProblems(units, marks) {
  const problems = [];
  const byPartition = new Map();
  for (const u of units) {
    if (!u.parsed) problems.push(`ledger unit ${u.uri} is not kafka://<topic>/<partition>/<first>-<last>`);
    if (u.state !== 'committed') problems.push(`ledger unit ${u.uri} is ${u.state}${u.reason ? ` (${u.reason})` : ''}`);
    if (!u.parsed || u.state !== 'committed') continue;
    const key = `${u.topic}/${u.partition}`;
    byPartition.set(key, [...(byPartition.get(key) ?? []), u]);
  }
  for (const [key, mark] of marks) {
    let next = 0;
    for (const r of (byPartition.get(key) ?? []).sort((a, b) => a.first - b.first)) {
      if (r.first > next) problems.push(`${key}: offsets ${next}-${r.first - 1} in no committed unit`);
      if (r.first < next) problems.push(`${key}: ${r.uri} overlaps offsets read before (next expected ${next})`);
      next = Math.max(next, r.last + 1);
    }
    if (next !== mark) problems.push(`${key}: committed units end at offset ${next - 1}, the high watermark is ${mark}`);
  }
  return problems.slice(0, 15);
}

async function watermarks(bootstrap) {
  const marks = new Map();
  for (const t of TOPICS) {
    for (let p = 0; p < t.partitions; ++p) marks.set(`${t.topic}/${p}`, await highWatermark(bootstrap, t.topic, p));
  }
  return marks;
}

test('three workers share six Kafka topics through PostgreSQL: a kill and a pause lose no record and apply none twice',
  async (t) => {
    if (!FLOE || !fs.existsSync(FLOE)) {
      t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
      return;
    }
    if (!PG_URI) {
      t.skip('skipped: FLOE_TEST_PG_URI is not set (scripts/test.sh starts a PostgreSQL server and sets it)');
      return;
    }
    if (missing) {
      t.skip(`skipped: ${missing}`);
      return;
    }
    const dir = fs.mkdtempSync(path.join(work, 'run-'));
    const kafka = await startKafka({ topics: TOPICS.map((x) => [x.topic, x.partitions]) });
    const name = `kafka_workers_${process.pid}`;
    const dumps = new Map(TOPICS.map((x) => [x.table, []]));
    const generated = new Map(TOPICS.map((x) => [x.table,
      generateChanges(x.shape, { seed: x.seed, keys: 60, changes: 480, partitions: x.partitions })]));
    // Part `i` of every topic's changes, in order; the dump keeps their offsets.
    const producePart = async (i) => {
      for (const x of TOPICS) {
        const { table, events } = generated.get(x.table);
        const size = Math.ceil(events.length / PARTS);
        const part = events.slice(i * size, (i + 1) * size);
        if (part.length === 0) continue;
        dumps.get(x.table).push(...await produceChanges(kafka.bootstrap, x.topic, { table, events: part },
          { format: 'json-schemaless', partitions: x.partitions }));
      }
    };
    const workers = ['a', 'b', 'c'].map((label) => ({ name: label, config: pipelineConfig(dir, name, kafka.bootstrap, label) }));
    try {
      await producePart(0);
      for (const w of workers) {
        w.daemon = startDaemon(w.config);
        await sleep(300);
      }
      const [a, b, c] = workers;
      await waitFor('every worker to take tables', () => workers.every((w) => /scale-out: took /.test(w.daemon.log)),
        60_000, workers);

      // A worker killed: a survivor of this machine sees its process gone and takes its tables.
      await producePart(1);
      await sleep(700);
      const idA = workerIdOf(a.daemon.log);
      assert.ok(idA, `worker a logged no id:\n${logTail(a.daemon.log)}`);
      a.daemon.child.kill('SIGKILL');
      await a.daemon.exited;
      const gone = new RegExp(`worker ${escape(idA)} (ran on this machine and has exited|sent no heartbeat)`);
      await waitFor('the survivors to take the killed worker\'s tables', () => gone.test(b.daemon.log + c.daemon.log),
        LEASE_TIMEOUT_MS + INTERVAL_MS + 30_000, workers);

      // A worker paused past its lease while records arrive, then woken.
      await producePart(2);
      const idB = workerIdOf(b.daemon.log);
      b.daemon.child.kill('SIGSTOP');
      const silent = new RegExp(`worker ${escape(idB)} sent no heartbeat`);
      await waitFor('worker c to declare the paused worker dead', () => silent.test(c.daemon.log), 30_000, workers);
      await sleep(LEASE_TIMEOUT_MS);
      b.daemon.child.kill('SIGCONT');
      await waitFor('the woken worker to learn it was declared dead and rejoin',
        () => /declared dead[\s\S]*joined again as worker/.test(b.daemon.log), 30_000, workers);

      await producePart(3);
      const marks = await watermarks(kafka.bootstrap);
      await waitFor('every offset to be committed', () => {
        const listed = runFloe(['files', c.config, '--format', 'jsonl']);
        if (listed.status !== 0) return false;
        const units = listed.stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
          .map((f) => ({ ...f, m: /^kafka:\/\/(.+)\/(\d+)\/(\d+)-(\d+)$/.exec(f.uri) }));
        const ends = new Map();
        for (const u of units) {
          if (!u.m || u.state !== 'committed') continue;
          const key = `${u.m[1]}/${u.m[2]}`;
          ends.set(key, Math.max(ends.get(key) ?? 0, Number(u.m[4]) + 1));
        }
        return [...marks].every(([key, mark]) => (ends.get(key) ?? 0) >= mark);
      }, 120_000, workers);
      for (const w of [b, c]) {
        assert.ok(!w.daemon.exit, `worker ${w.name} exited: ${JSON.stringify(w.daemon.exit)}\n${logTail(w.daemon.log)}`);
      }
    } finally {
      for (const w of workers) {
        if (!w.daemon || w.daemon.exit) continue;
        w.daemon.child.kill('SIGCONT');
        w.daemon.child.kill('SIGTERM');
      }
      for (const w of workers) if (w.daemon) await w.daemon.exited;
      await kafka.stop().catch(() => {});
    }
    const [, b, c] = workers;
    for (const w of [b, c]) {
      assert.deepEqual(w.daemon.exit, { code: 0, signal: null }, `worker ${w.name} on SIGTERM: ${logTail(w.daemon.log)}`);
    }
    const tookOver = (c.daemon.log.match(/scale-out: took /g) ?? []).length + (b.daemon.log.match(/scale-out: took /g) ?? []).length;
    t.diagnostic(`leases taken by the two survivors over the run: ${tookOver}`);

    // Every offset in exactly one committed unit.
    const marks = new Map();
    for (const x of TOPICS) {
      for (let p = 0; p < x.partitions; ++p) {
        const offsets = dumps.get(x.table).filter((d) => d.partition === p).map((d) => d.offset);
        marks.set(`${x.topic}/${p}`, offsets.length ? Math.max(...offsets) + 1 : 0);
      }
    }
    assert.deepEqual(coverageProblems(kafkaUnits(c.config), marks), [], 'ledger');

    const catalog = ['--catalog', PG_URI, '--catalog-name', name, '--warehouse', path.join(dir, 'warehouse')];
    let maintenanceCommits = 0;
    for (const x of TOPICS) {
      const dumpPath = path.join(dir, `${x.table}.jsonl`);
      fs.writeFileSync(dumpPath, dumps.get(x.table).map((d) => JSON.stringify(d)).join('\n') + '\n');
      const expected = new Map();
      for (const { row } of await oracle(db, dumpPath, x.shape)) {
        const picked = {};
        for (const column of PLAIN[x.shape]) picked[column] = row[column] == null ? null : String(row[column]);
        expected.set(String(row[KEY[x.shape]]), picked);
      }
      assert.ok(expected.size > 10, `${x.table}: only ${expected.size} rows expected: the test proves little`);
      const scanned = rowsByKeyFromScanCsv(
        runFloeOk(['table', 'scan', `${NAMESPACE}.${x.table}`, ...catalog, '--format', 'csv']).stdout, [KEY[x.shape]]);
      assert.deepEqual(scanned.duplicates.slice(0, 10), [], `${x.table}: keys twice in the table`);
      assert.deepEqual(compareByKey(expected, scanned.rows, { label: `${NAMESPACE}.${x.table}`, limit: 15 }), []);

      // One owner at a time: the epochs of ingest and maintenance commits never go back.
      // snapshot-id, parent-id, sequence, timestamp, operation, summary (key=value, ...); by sequence number.
      const { stdout } = runFloeOk(['table', 'history', `${NAMESPACE}.${x.table}`, ...catalog]);
      const snapshots = stdout.split('\n').slice(1).filter((l) => l.trim()).map((l) => l.split('\t'))
        .map((cols) => ({ sequence: Number(cols[2]),
          summary: Object.fromEntries((cols[5] ?? '').split(', ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])) }))
        .sort((p, q) => p.sequence - q.sequence);
      const batches = snapshots.map((s) => s.summary['floe.batch-id']).filter((id) => id !== undefined);
      assert.equal(new Set(batches).size, batches.length, `${x.table}: a batch committed in two snapshots`);
      const workerCommits = snapshots.filter((s) => s.summary['floe.batch-id'] !== undefined || s.summary['floe.maintenance'] !== undefined);
      const epochs = workerCommits.map((s) => Number(s.summary['floe.lease-epoch']));
      assert.ok(epochs.every((e) => Number.isInteger(e) && e >= 1), `${x.table}: a worker's snapshot without floe.lease-epoch`);
      for (let i = 1; i < epochs.length; ++i) {
        assert.ok(epochs[i] >= epochs[i - 1], `${x.table}: lease epoch went from ${epochs[i - 1]} back to ${epochs[i]}`);
      }
      maintenanceCommits += workerCommits.length - batches.length;
    }
    t.diagnostic(`maintenance snapshots across the tables: ${maintenanceCommits}`);
  });
