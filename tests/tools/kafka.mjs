// Kafka for floe's node tests: the test broker (kafka_mock_broker, librdkafka's
// mock cluster, built by tests/CMakeLists.txt) and kcat, a Kafka client floe
// did not write, to produce and read records.
//
//   const kafka = await startKafka({ brokers: 3, topics: [['orders', 4]] });
//   await kafka.command('down 2');            // see tests/tools/kafka_mock_broker.c
//   await produce(kafka.bootstrap, 'orders', 0, [{ key: 'k1', value: '{"a":1}' }, { key: 'k2', value: null }]);
//   await highWatermark(kafka.bootstrap, 'orders', 0);   // 2
//   const records = await consume(kafka.bootstrap, 'orders', 0);   // [{partition, offset, key, value}]
//   await kafka.stop();
//
// The broker binary comes from $FLOE_KAFKA_MOCK_BROKER (ctest sets it), else
// from tests/kafka_mock_broker beside $FLOE_BIN's build directory.
// Limits of the mock (librdkafka 2.0.2): about 5 MB per partition before it
// silently drops the oldest records (check lowWatermark), no transactions to
// rely on, no partitions added to an existing topic.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

// What kcat splits its input at: records may not contain these bytes.
const kRecordDelimiter = Buffer.from('|~floe-record~|');
const kKeyDelimiter = Buffer.from('|~floe-key~|');

export function mockBrokerPath() {
  if (process.env.FLOE_KAFKA_MOCK_BROKER) return process.env.FLOE_KAFKA_MOCK_BROKER;
  if (process.env.FLOE_BIN) return path.join(path.dirname(process.env.FLOE_BIN), 'tests', 'kafka_mock_broker');
  return '';
}

// Why Kafka tests cannot run here, or '' when they can.
export function kafkaToolsMissing() {
  const broker = mockBrokerPath();
  if (!broker || !fs.existsSync(broker)) return `the test broker is not built (${broker || 'set FLOE_KAFKA_MOCK_BROKER'})`;
  if (spawnSync('kcat', ['-V']).status !== 0) return 'kcat is not installed (Debian package kafkacat)';
  return '';
}

export async function startKafka({ brokers = 1, topics = [] } = {}) {
  const args = ['--brokers', String(brokers)];
  for (const [name, partitions] of topics) args.push('--topic', `${name}:${partitions}`);
  const child = spawn(mockBrokerPath(), args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const lines = readline.createInterface({ input: child.stdout });
  const waiting = [];
  const pending = [];
  lines.on('line', (line) => {
    if (waiting.length > 0) waiting.shift()(line);
    else pending.push(line);
  });
  const nextLine = () => new Promise((resolve, reject) => {
    if (pending.length > 0) return resolve(pending.shift());
    const timer = setTimeout(() => reject(new Error(`test broker: no answer (stderr: ${stderr})`)), 20000);
    waiting.push((line) => { clearTimeout(timer); resolve(line); });
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const first = await Promise.race([nextLine(), exited.then((code) => {
    throw new Error(`test broker exited with ${code}: ${stderr}`);
  })]);
  if (!first.startsWith('bootstrap ')) throw new Error(`test broker said "${first}"`);
  let queue = Promise.resolve();
  return {
    bootstrap: first.slice('bootstrap '.length),
    // Sends one command; resolves with "ok", rejects with the broker's error.
    command(line) {
      const result = queue.then(async () => {
        child.stdin.write(`${line}\n`);
        const answer = await nextLine();
        if (answer !== 'ok') throw new Error(`test broker: "${line}" -> ${answer}`);
        return answer;
      });
      queue = result.catch(() => {});
      return result;
    },
    async stop() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function run(args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    let err = '';
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => { err += chunk; });
    child.on('error', reject);
    // kcat may exit before it has read all its input (a broker error): the
    // EPIPE that our write then gets is not the error; kcat's exit status and
    // stderr, reported below, are.
    child.stdin.on('error', () => {});
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`kcat ${args.join(' ')} exited with ${code}: ${err}`));
    });
    child.stdin.end(input ?? Buffer.alloc(0));
  });
}

const toBuffer = (v) => (v == null ? null : Buffer.isBuffer(v) ? v : Buffer.from(String(v)));

// Produces `records` ({key, value}: string, Buffer or null; null or empty is
// sent as null) to topic[partition], in order, with kcat. `headers` are
// "name=value" strings set on every record.
export async function produce(bootstrap, topic, partition, records, { headers = [] } = {}) {
  if (records.length === 0) return;
  const parts = [];
  records.forEach((record, i) => {
    const key = toBuffer(record.key);
    const value = toBuffer(record.value);
    for (const part of [key, value]) {
      if (part && (part.includes(kRecordDelimiter) || part.includes(kKeyDelimiter))) {
        throw new Error(`record ${i} contains a kcat delimiter`);
      }
    }
    if (i > 0) parts.push(kRecordDelimiter);
    if (key) parts.push(key);
    parts.push(kKeyDelimiter);
    if (value) parts.push(value);
  });
  const args = ['-P', '-q', '-b', bootstrap, '-t', topic, '-p', String(partition), '-Z',
    '-K', kKeyDelimiter.toString(), '-D', kRecordDelimiter.toString(),
    // Records keep their order: retries cannot reorder an idempotent producer.
    '-X', 'enable.idempotence=true'];
  for (const h of headers) args.push('-H', h);
  await run(args, Buffer.concat(parts));
}

async function queryOffset(bootstrap, topic, partition, which) {
  const out = await run(['-Q', '-b', bootstrap, '-t', `${topic}:${partition}:${which}`]);
  const m = out.toString().match(/offset (-?\d+)/);
  if (!m) throw new Error(`kcat -Q ${topic}:${partition}: ${out}`);
  return Number(m[1]);
}

export const highWatermark = (bootstrap, topic, partition) => queryOffset(bootstrap, topic, partition, -1);
export const lowWatermark = (bootstrap, topic, partition) => queryOffset(bootstrap, topic, partition, -2);

// The records of topic[partition] from `offset` to its end, read by kcat:
// [{partition, offset, key, value}] with key and value as Buffers or null.
export async function consume(bootstrap, topic, partition, { offset = 'beginning' } = {}) {
  // -f with lengths: %K/%S give the key/value byte counts (-1 for null), so
  // binary payloads are cut exactly.
  const out = await run(['-C', '-q', '-e', '-b', bootstrap, '-t', topic, '-p', String(partition),
    '-o', String(offset), '-f', '%p %o %K %S\n%k%s\n']);
  const records = [];
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(0x0a, at);
    const [p, o, keyLength, valueLength] = out.subarray(at, nl).toString().split(' ').map(Number);
    at = nl + 1;
    const key = keyLength < 0 ? null : out.subarray(at, at + keyLength);
    at += Math.max(keyLength, 0);
    const value = valueLength < 0 ? null : out.subarray(at, at + valueLength);
    at += Math.max(valueLength, 0) + 1;
    records.push({ partition: p, offset: o, key, value });
  }
  return records;
}
