// Kafka → Iceberg throughput: Debezium change records already in the
// broker, consumed, merged by key and committed by `floe run --once`, beside
// kcat (librdkafka's own consumer) only reading the same records.
//
//   node bench/streaming/run.mjs [RECORDS] [PARTITIONS] [KEYS] [REPEATS] [FORM]
//     defaults: 192000 records over 64 partitions, 48000 keys (so 3 of 4
//     changes are updates of a key seen before), 3 repeats, FORM "schemaless"
//     (the JSON converter with schemas.enable=false: ~1 KB, 20 columns) or
//     "wrapped" (schemas.enable=true: the same payload inside
//     {"schema": ..., "payload": ...}, ~4 KB a record).
// Needs a release build in build/ (floe and kafka_mock_broker). The mock
// keeps ~5 MB per partition, so records are spread to stay below that. Every
// process runs on this machine beside the broker: the figures include the
// broker's work and compare with each other (printed with the load average).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKafka, produce, highWatermark } from '../../tests/tools/kafka.mjs';
import { debeziumRecords, writeBenchConfig } from './records.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const [records = 192000, partitions = 64, keys = 48000, repeats = 3] = args.slice(0, 4).map(Number);
const form = args[4] ?? 'schemaless';
process.env.FLOE_KAFKA_MOCK_BROKER ??= path.join(root, 'build/tests/kafka_mock_broker');
const floe = path.join(root, 'build/floe');
const build = spawnSync('cmake', ['--build', path.join(root, 'build'), '--target', 'floe', 'kafka_mock_broker'],
  { stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const { value } = debeziumRecords(form);

const perPartition = Math.ceil(records / partitions);
const sample = value(1, 1, 'u').length;
if (perPartition * (sample + 40) > 4.5e6) throw new Error(`~${sample} B records: more than ~5 MB per partition, the mock would drop records; use more partitions`);
const kafka = await startKafka({ topics: [['bench.inventory.customers', partitions]] });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-stream-bench-'));
try {
  const produceStart = Date.now();
  const versions = new Map();
  for (let p = 0; p < partitions; p++) {
    const batch = [];
    for (let i = 0; i < perPartition; i++) {
      // Keys live in one partition each, as Debezium's key partitioning does.
      const key = p + partitions * Math.floor(((i * 2654435761) % 4294967296) / 4294967296 * (keys / partitions));
      const version = (versions.get(key) ?? 0) + 1;
      versions.set(key, version);
      batch.push({ key: JSON.stringify({ id: key }), value: value(key, version, i % 50 === 49 ? 'd' : version === 1 ? 'c' : 'u') });
    }
    await produce(kafka.bootstrap, 'bench.inventory.customers', p, batch);
  }
  let total = 0;
  for (let p = 0; p < partitions; p++) total += await highWatermark(kafka.bootstrap, 'bench.inventory.customers', p);
  console.log(`produced ${total} ${form} records of ~${sample} B (${(total * sample / 1e6).toFixed(0)} MB) over ${partitions} partitions, ${versions.size} keys, in ${((Date.now() - produceStart) / 1000).toFixed(1)} s`);

  const time = (command, commandArgs) => {
    const start = process.hrtime.bigint();
    const result = spawnSync(command, commandArgs, { maxBuffer: 1 << 30, encoding: 'utf8' });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stdout}${result.stderr}`);
    return { seconds, stdout: result.stdout, stderr: result.stderr };
  };
  const rows = [];
  for (let r = 0; r < repeats; r++) {
    const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
    const kcat = time('kcat', ['-C', '-q', '-e', '-b', kafka.bootstrap, '-t', 'bench.inventory.customers', '-o', 'beginning', '-f', '%o\n']);
    const kcatCount = kcat.stdout.split('\n').filter(Boolean).length;
    if (kcatCount !== total) throw new Error(`kcat read ${kcatCount} of ${total} records`);
    const run = path.join(dir, `run${r}`);
    fs.mkdirSync(run);
    const config = writeBenchConfig(run, { name: 'bench', bootstrap: kafka.bootstrap, topic: 'bench.inventory.customers' });
    const result = time(floe, ['run', config, '--once']);
    const line = result.stdout.split('\n').find((l) => l.startsWith('customers'));
    rows.push({ load, kcat: kcat.seconds, floe: result.seconds, line });
  }
  console.log(`| repeat | load average | kcat (consume only) | floe run --once (consume, merge, commit) | floe records/s | kcat records/s | floe / kcat time |`);
  console.log('|---|---|---|---|---|---|---|');
  rows.forEach((row, i) => console.log(`| ${i + 1} | ${row.load} | ${row.kcat.toFixed(2)} s | ${row.floe.toFixed(2)} s | ${(total / row.floe).toFixed(0)} | ${(total / row.kcat).toFixed(0)} | ${(row.floe / row.kcat).toFixed(2)}x |`));
  console.log(rows[rows.length - 1].line);
} finally {
  await kafka.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
