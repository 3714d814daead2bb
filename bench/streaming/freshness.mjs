// Kafka → Iceberg freshness: how long a change record takes from its
// produce call to a committed Iceberg snapshot that holds it, while records
// keep flowing at a steady rate into a continuous `floe run` with
// [trigger] interval = "1s" (issue 16's target: p99 < 2 s at 5,000 records/s).
//
//   node bench/streaming/freshness.mjs [RATE] [SECONDS] [PARTITIONS] [KEYS]
//     defaults: 5000 records/s for 30 s over 8 partitions, 20000 keys
//     (schemaless Debezium JSON, ~1 KB, merged by key).
// Every 100 ms the producer hands RATE/10 records to kcat (one partition per
// tick, round robin) and notes the time of the call for their offsets; the
// producer is the partitions' only writer, so their offsets are known. A
// watcher re-reads the table's metadata every 100 ms; each new snapshot's
// floe.stream-ranges names the offsets it committed, and its timestamp-ms
// is when it was committed. A record's freshness = the committing
// snapshot's timestamp - its produce call. Needs a release build in build/.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKafka, produce } from '../../tests/tools/kafka.mjs';
import { debeziumRecords, writeBenchConfig } from './records.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [rate = 5000, seconds = 30, partitions = 8, keys = 20000] = process.argv.slice(2).map(Number);
process.env.FLOE_KAFKA_MOCK_BROKER ??= path.join(root, 'build/tests/kafka_mock_broker');
const floe = path.join(root, 'build/floe');
const build = spawnSync('cmake', ['--build', path.join(root, 'build'), '--target', 'floe', 'kafka_mock_broker'],
  { stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const topic = 'bench.inventory.customers';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const { value } = debeziumRecords('schemaless');
const kafka = await startKafka({ topics: [[topic, partitions]] });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-freshness-bench-'));
let daemon;
try {
  const config = writeBenchConfig(dir, { name: 'fresh', bootstrap: kafka.bootstrap, topic, trigger: 'interval = "1s"' });
  let log = '';
  daemon = spawn(floe, ['run', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  daemon.stderr.on('data', (chunk) => { log = (log + chunk).slice(-20000); });

  // Produce: offsets -> produce-call time, per partition.
  const producedAt = Array.from({ length: partitions }, () => []);
  const versions = new Map();
  let produced = 0;
  const perTick = Math.max(1, Math.round(rate / 10));
  const producing = (async () => {
    const start = Date.now();
    for (let tick = 0; Date.now() - start < seconds * 1000; ++tick) {
      const due = start + tick * 100;
      if (Date.now() < due) await sleep(due - Date.now());
      const p = tick % partitions;
      const batch = [];
      for (let i = 0; i < perTick; ++i) {
        const key = p + partitions * ((produced + i) * 2654435761 % Math.floor(keys / partitions));
        const version = (versions.get(key) ?? 0) + 1;
        versions.set(key, version);
        batch.push({ key: JSON.stringify({ id: key }), value: value(key, version, version === 1 ? 'c' : 'u') });
      }
      const calledAt = Date.now();
      await produce(kafka.bootstrap, topic, p, batch);
      for (let i = 0; i < batch.length; ++i) producedAt[p].push(calledAt);
      produced += batch.length;
    }
  })();

  // Watch the table's snapshots.
  const latencies = [];
  const seenSnapshots = new Set();
  let committed = 0;
  const watch = () => {
    const described = spawnSync(floe, ['table', 'describe', 'inventory.customers', '--catalog',
      `sqlite://${path.join(dir, 'catalog.db')}`], { encoding: 'utf8' });
    const m = /^metadata: (.+)$/m.exec(described.stdout ?? '');
    if (!m) return;
    const metadata = JSON.parse(fs.readFileSync(m[1].trim().replace(/^file:\/\//, ''), 'utf8'));
    for (const snapshot of metadata.snapshots ?? []) {
      if (seenSnapshots.has(snapshot['snapshot-id'])) continue;
      seenSnapshots.add(snapshot['snapshot-id']);
      const ranges = snapshot.summary?.['floe.stream-ranges'];
      if (!ranges) continue;
      for (const range of ranges.split(',')) {
        const parts = range.split('/');
        const partition = Number(parts[parts.length - 2]);
        const [first, last] = parts[parts.length - 1].split('-').map(Number);
        for (let offset = first; offset <= last; ++offset) {
          latencies.push(snapshot['timestamp-ms'] - producedAt[partition][offset]);
          ++committed;
        }
      }
    }
  };
  let done = false;
  producing.then(() => { done = true; });
  const deadline = () => Date.now() > seconds * 1000 + 30_000 + startedAt;
  const startedAt = Date.now();
  while (!(done && committed >= produced) && !deadline()) {
    watch();
    await sleep(100);
  }
  await producing;
  if (committed < produced) throw new Error(`only ${committed} of ${produced} records committed; floe said:\n${log}`);
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`${produced} records at ${rate}/s for ${seconds} s over ${partitions} partitions, ${versions.size} keys; ` +
    `${seenSnapshots.size} snapshots; load average ${load}`);
  console.log('| records/s | interval | p50 | p90 | p99 | max |');
  console.log('|---|---|---|---|---|---|');
  console.log(`| ${rate} | 1 s | ${at(0.5)} ms | ${at(0.9)} ms | ${at(0.99)} ms | ${latencies[latencies.length - 1]} ms |`);
} finally {
  if (daemon && daemon.exitCode === null) {
    daemon.kill('SIGTERM');
    await new Promise((resolve) => daemon.once('exit', resolve));
  }
  await kafka.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
