// Kafka consumer throughput, floe's KafkaConsumer beside kcat (librdkafka's
// own command-line consumer) reading the same records from the test broker.
//
//   node bench/kafka/run.mjs [RECORDS] [PARTITIONS] [REPEATS]
//     (defaults: 192000 records of ~1 KB over 64 partitions, 3 repeats)
// Needs a release build in build/ (the consume_throughput and
// kafka_mock_broker targets). The mock keeps ~5 MB per partition, so the
// records are spread to stay below that. Both readers run on this machine
// beside the broker: the figures include the broker's work, and are only
// comparable with each other (printed with the load average).
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKafka, produce, highWatermark } from '../../tests/tools/kafka.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [records = 192000, partitions = 64, repeats = 3] = process.argv.slice(2).map(Number);
process.env.FLOE_KAFKA_MOCK_BROKER ??= path.join(root, 'build/tests/kafka_mock_broker');
const build = spawnSync('cmake', ['--build', path.join(root, 'build'), '--target', 'consume_throughput', 'kafka_mock_broker'],
  { stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const perPartition = Math.ceil(records / partitions);
if (perPartition * 1100 > 5e6) throw new Error('more than ~5 MB per partition: the mock would drop records');
const kafka = await startKafka({ topics: [['bench', partitions]] });
try {
  const value = (p, i) => {
    const head = `{"partition":${p},"offset":${i},"payload":"`;
    return head + 'x'.repeat(1000 - head.length - 2) + '"}';
  };
  const produceStart = Date.now();
  for (let p = 0; p < partitions; p++) {
    await produce(kafka.bootstrap, 'bench', p,
      Array.from({ length: perPartition }, (_, i) => ({ key: `key-${p}-${i}`, value: value(p, i) })));
  }
  let total = 0;
  for (let p = 0; p < partitions; p++) total += await highWatermark(kafka.bootstrap, 'bench', p);
  console.log(`produced ${total} records (${(total * 1.01e3 / 1e6).toFixed(0)} MB) over ${partitions} partitions in ${((Date.now() - produceStart) / 1000).toFixed(1)} s`);

  const time = (command, args) => {
    const start = process.hrtime.bigint();
    const result = spawnSync(command, args, { maxBuffer: 1 << 30, encoding: 'utf8' });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
    return { seconds, stdout: result.stdout };
  };
  const rows = [];
  for (let r = 0; r < repeats; r++) {
    const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
    const kcat = time('kcat', ['-C', '-q', '-e', '-b', kafka.bootstrap, '-t', 'bench', '-o', 'beginning', '-f', '%S\n']);
    const kcatCount = kcat.stdout.split('\n').filter(Boolean).length;
    if (kcatCount !== total) throw new Error(`kcat read ${kcatCount} of ${total} records`);
    const floe = time(path.join(root, 'build/bench/consume_throughput'), [kafka.bootstrap, 'bench', String(partitions)]);
    const f = JSON.parse(floe.stdout);
    rows.push({ load, kcat: kcat.seconds, floe: f.seconds, floeProcess: floe.seconds });
  }
  console.log('| repeat | load average (1/5/15 min) | kcat process | floe process | floe Fetch loop | floe records/s | kcat records/s | floe vs kcat |');
  console.log('|---|---|---|---|---|---|---|---|');
  rows.forEach((row, i) => console.log(`| ${i + 1} | ${row.load} | ${row.kcat.toFixed(2)} s | ${row.floeProcess.toFixed(2)} s | ${row.floe.toFixed(2)} s | ${(total / row.floe).toFixed(0)} | ${(total / row.kcat).toFixed(0)} | ${(row.kcat / row.floeProcess).toFixed(2)}x |`));
} finally {
  await kafka.stop();
}
