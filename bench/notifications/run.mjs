// Event-driven discovery against listing (issue 20), on moto's S3 and SQS
// (moto_server + boto3, as the tests use them; tests/tools/moto.mjs):
//
//   node bench/notifications/run.mjs [N] [EXISTING] [INTERVAL_MS] [GAP_MS]
//     defaults: 40 landed files, a prefix of 100000 existing files, [trigger]
//     interval = 1000 ms in both modes, a landing every 500 ms
//
// Two scenarios, each run in listing mode and in notification mode (S3 ->
// SQS, default settings: one long poll outstanding) with the same
// [trigger] interval and a fresh pipeline:
//   small:  N Parquet files land one by one (GAP_MS apart) in an empty prefix;
//   large:  the same landing into a prefix that already holds EXISTING
//           objects (not this pipeline's data: include = ["landed/**"], so a
//           listing pages through all of them and takes none).
// Freshness of a file = the commit time of the snapshot holding it (its
// timestamp-ms, found through the ledger's batch id and the snapshot's
// floe.batch-id) - the moment boto3's PUT returned. floe reaches S3 and SQS
// through tests/tools/fault_proxy.mjs (no faults), which counts requests:
// S3 LIST (GET ?list-type=2), HEAD and GET, from the end of the start listing
// to the last commit, per landed file; SQS calls likewise.
// Needs a release build in build/. Prints a JSON document; the load average
// of the machine is part of it (timings on a loaded machine are not quiet-
// machine figures).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAwsDriver, startMoto } from '../../tests/tools/moto.mjs';
import { startNodeTool } from '../../tests/tools/pipeline_oracle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [landings = 40, existing = 100000, intervalMs = 1000, gapMs = 500] = process.argv.slice(2).map(Number);
const floe = path.join(root, 'build/floe');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-notifications-bench-'));
const children = [];

function loadAverage() {
  return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

let moto;
let aws;  // boto3 (tests/tools/aws_driver.py --serve), one process
const driver = (command) => aws.call(command);

function floeOk(args) {
  const run = spawnSync(floe, args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (run.status !== 0) throw new Error(`floe ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

async function proxyStats(proxy) {
  return (await fetch(`${proxy}/__proxy/stats`)).json();
}

function countRequests(log) {
  const counts = { LIST: 0, HEAD: 0, GET: 0, other_s3: 0, sqs: {} };
  for (const entry of log) {
    if (entry.target) {
      const op = entry.target.replace(/^AmazonSQS\./, '');
      counts.sqs[op] = (counts.sqs[op] ?? 0) + 1;
    } else if (entry.method === 'GET' && /[?&]list-type=2/.test(entry.url)) {
      ++counts.LIST;
    } else if (entry.method === 'HEAD') {
      ++counts.HEAD;
    } else if (entry.method === 'GET') {
      ++counts.GET;
    } else {
      ++counts.other_s3;
    }
  }
  return counts;
}

// One pipeline run: lands the files while `floe run` runs, returns freshness and request counts.
async function measure({ name, bucket, mode, proxy, queueUrl, template }) {
  const dir = fs.mkdtempSync(path.join(work, `${name}-${mode}-`));
  const notifications = mode === 'notifications' ? `queue_url = "${queueUrl}"\nsqs_endpoint = "${proxy}"\n` : '';
  const config = path.join(dir, 'pipeline.toml');
  fs.writeFileSync(config, `name = "bench"
[source]
format = "parquet"
uri = "s3://${bucket}/data"
table = "landed"
include = ["landed/**"]
${notifications}
[catalog]
type = "sql"
uri = "sqlite://${path.join(dir, 'catalog.db')}"
warehouse = "${path.join(dir, 'warehouse')}"
[state]
dir = "${path.join(dir, 'state')}"
[s3]
endpoint = "${proxy}"
region = "us-east-1"
access_key_id = "testing"
secret_access_key = "testing"
[trigger]
interval = "${intervalMs}ms"
[maintenance]
enabled = false
`);
  // Messages of earlier runs (other modes) are dropped first.
  if (queueUrl) await driver({ command: 'sqs-receive-all', queue_url: queueUrl });
  const trace = path.join(dir, 'trace.jsonl');
  const daemon = spawn(floe, ['run', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, FLOE_PIPELINE_TRACE: trace },
  });
  children.push(daemon);
  let log = '';
  daemon.stderr.on('data', (chunk) => {
    log += chunk;
  });
  // The start listing (both modes) is over once the loop first sleeps.
  const startedAt = Date.now();
  const started = () => fs.existsSync(trace) && fs.readFileSync(trace, 'utf8').includes('"sleep"');
  while (!started() && Date.now() - startedAt < 300_000) await sleep(200);
  const startListingMs = Date.now() - startedAt;
  await fetch(`${proxy}/__proxy/reset`, { method: 'POST' });
  const prefix = `data/landed/${mode}-`;
  const landed = await driver({ command: 's3-land', bucket, prefix, file: template, count: landings, interval_ms: gapMs });
  const uris = new Set(landed.map((l) => `s3://${bucket}/${l.key}`));
  const deadline = Date.now() + 300_000;
  let ledger = [];
  while (Date.now() < deadline) {
    ledger = floeOk(['files', config, '--format', 'jsonl']).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    if (ledger.filter((f) => uris.has(f.uri) && f.state === 'committed').length === uris.size) break;
    await sleep(500);
  }
  const stats = await proxyStats(proxy);
  daemon.kill('SIGTERM');
  await new Promise((resolve) => daemon.on('exit', resolve));
  const describe = floeOk(['table', 'describe', 'default.landed', '--catalog', `sqlite://${path.join(dir, 'catalog.db')}`,
    '--warehouse', path.join(dir, 'warehouse')]);
  const metadataPath = /^metadata: (.+)$/m.exec(describe)[1].trim().replace(/^file:\/\//, '');
  const metadata = JSON.parse(fs.readFileSync(metadataPath, 'utf8'));
  const commitOfBatch = new Map();
  for (const snapshot of metadata.snapshots) {
    const batch = snapshot.summary?.['floe.batch-id'];
    if (batch !== undefined) commitOfBatch.set(Number(batch), snapshot['timestamp-ms']);
  }
  const batchOf = new Map(ledger.map((f) => [f.uri, f.batch]));
  const freshness = landed.map((l) => commitOfBatch.get(batchOf.get(`s3://${bucket}/${l.key}`)) - l.ms);
  if (freshness.some((v) => !Number.isFinite(v))) throw new Error(`${name} ${mode}: a file did not commit:\n${log}`);
  const requests = countRequests(stats.log);
  const perFile = (n) => Number((n / landings).toFixed(3));
  return {
    mode,
    freshness_ms: { p50: percentile(freshness, 50), p99: percentile(freshness, 99), max: Math.max(...freshness) },
    commits: commitOfBatch.size,
    s3_requests: { LIST: requests.LIST, HEAD: requests.HEAD, GET: requests.GET, other: requests.other_s3 },
    s3_requests_per_file: {
      LIST: perFile(requests.LIST),
      HEAD: perFile(requests.HEAD),
      GET: perFile(requests.GET),
      all: perFile(requests.LIST + requests.HEAD + requests.GET + requests.other_s3),
    },
    sqs_requests: requests.sqs,
    start_listing_ms: startListingMs,
    load_average: loadAverage(),
  };
}

try {
  moto = await startMoto({ log: path.join(work, 'moto.log') });
  if (moto.missing) {
    console.error(`skipped: ${moto.missing}`);
    process.exit(3);
  }
  aws = startAwsDriver(moto.url);
  const proxyPort = await startNodeTool([path.join(root, 'tests/tools/fault_proxy.mjs'), String(moto.port), 'testing'],
    children);
  const proxy = `http://127.0.0.1:${proxyPort}`;
  // One small Parquet file (a demo part file) is what every landing uploads.
  const exportDir = path.join(work, 'export');
  floeOk(['demo', 'generate', exportDir, '--seed', '5', '--rows', '200', '--tables', '1', '--folders', '1',
    '--files-per-folder', '1', '--no-uncommitted-folder', '--no-schema-change', '--no-empty-folder']);
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]);
  const template = walk(exportDir).find((f) => f.endsWith('.parquet'));

  const result = { landings, existing, interval_ms: intervalMs, gap_ms: gapMs, scenarios: {} };
  for (const [name, bucket, count] of [['small', 'bench-small', 0], ['large', 'bench-large', existing]]) {
    const { queue_url: queueUrl } = await driver({ command: 's3-notifications', bucket, queue: `${bucket}-events`,
      route: 'direct', prefix: 'data/landed/' });
    if (count > 0) {
      const started = Date.now();
      await driver({ command: 's3-put-many', bucket, prefix: 'data/archive/', count, body: 'x' });
      result[`${name}_setup_s`] = Math.round((Date.now() - started) / 1000);
    }
    result.scenarios[name] = [];
    for (const mode of ['listing', 'notifications']) {
      const measured = await measure({ name, bucket, mode, proxy, queueUrl, template });
      console.error(`${name} ${mode}: ${JSON.stringify(measured)}`);
      result.scenarios[name].push(measured);
    }
  }
  result.cpu = os.cpus()[0]?.model;
  console.log(JSON.stringify(result, null, 2));
} finally {
  for (const child of children) child.kill('SIGTERM');
  aws?.stop();
  await moto?.stop?.();
  fs.rmSync(work, { recursive: true, force: true });
}
