// End to end on object storage: a generated CDA export uploaded to a bucket of
// a local S3 server (s3rver), the warehouse in another bucket, the SQLite
// catalog local. floe talks to the server through the fault-injecting proxy
// (tests/tools/fault_proxy.mjs), which also verifies every SigV4 signature,
// while 5xx answers, SlowDown, dropped connections and truncated bodies are
// injected throughout the run. `floe run --once` must still produce exactly
// the DuckDB oracle's rows, the same as a run on the local filesystem.
//
// Env: FLOE_BIN (required).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openDuckDB } from '../tools/readers.mjs';
import {
  FLOE,
  compareRows,
  committedFiles,
  exportTables,
  floeRows,
  oracleRows,
  runFloe,
  runFloeOk,
  startNodeTool,
} from '../tools/pipeline_oracle.mjs';

const TOOLS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'tools');
const KEY = 'S3RVER';  // the only credentials s3rver knows; the proxy checks signatures with it
const children = [];
let db;
let work;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-s3-pipeline-'));
  if (FLOE) db = await openDuckDB();
});
after(() => {
  for (const child of children) child.kill('SIGTERM');
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function upload(port, bucket, key, body) {
  // s3rver does not check signatures (only the clock): a PUT with a dummy v4 header is accepted.
  const amzDate = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const response = await fetch(`http://127.0.0.1:${port}/${bucket}/${key}`, {
    method: 'PUT',
    body,
    headers: {
      authorization: `AWS4-HMAC-SHA256 Credential=${KEY}/${amzDate.slice(0, 8)}/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0`,
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
      'x-amz-date': amzDate,
    },
  });
  if (!response.ok) throw new Error(`PUT ${bucket}/${key}: ${response.status} ${await response.text()}`);
}

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}

test('CDA export in S3, warehouse in S3, faults injected: the table equals the oracle', async (t) => {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return;
  }
  const serverPort = await startNodeTool(['--openssl-legacy-provider', path.join(TOOLS, 's3rver.mjs'),
    path.join(work, 's3rver'), 'landing', 'lake'], children);
  const proxyPort = await startNodeTool([path.join(TOOLS, 'fault_proxy.mjs'), String(serverPort), KEY], children);
  const proxy = `http://127.0.0.1:${proxyPort}`;

  const exportDir = path.join(work, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '21', '--rows', '900', '--tables', '2']);
  for (const file of walk(exportDir)) {
    await upload(serverPort, 'landing', `cda/${path.relative(exportDir, file)}`, fs.readFileSync(file));
  }

  const config = path.join(work, 'pipeline.toml');
  fs.writeFileSync(config, `name = "s3-e2e"
[source]
format = "cda"
uri = "s3://landing/cda"
[catalog]
type = "sql"
uri = "sqlite://${path.join(work, 'catalog.db')}"
warehouse = "s3://lake/warehouse"
[target]
namespace = "cda"
target_file_size = "4MiB"
[state]
dir = "${path.join(work, 'state')}"
[s3]
endpoint = "${proxy}"
region = "us-east-1"
path_style = true
access_key_id = "${KEY}"
secret_access_key = "${KEY}"
max_attempts = 8
[trigger]
max_files_per_batch = 5
`);

  // A fault every few requests, of every kind the proxy knows that a client must survive.
  const faults = [];
  const kinds = ['500', '503', 'slowdown', '429', 'drop', 'GET:truncate', 'drop-after'];
  for (let i = 0; i < 60; ++i) faults.push('ok', 'ok', 'ok', kinds[i % kinds.length]);
  const queued = await fetch(`${proxy}/__proxy/faults`, { method: 'POST', body: JSON.stringify(faults) });
  assert.equal(queued.status, 200);

  const run = runFloe(['run', config, '--once'], { timeoutMs: 600_000 });
  assert.equal(run.status, 0, `floe run on S3 failed:\n${run.stderr}\n${run.stdout}`);
  const stats = await (await fetch(`${proxy}/__proxy/stats`)).json();
  assert.equal(stats.signatureFailures, 0, 'floe sent requests with bad SigV4 signatures');
  assert.ok(stats.queued < faults.length - 40, `too few requests went through the proxy (${stats.queued} faults left)`);

  // A new round lands; the next run lists only folders after the watermark
  // (S3 start-after listing), not the whole export, and ingests just those.
  await fetch(`${proxy}/__proxy/reset`, { method: 'POST' });
  const before = new Set(walk(exportDir));
  runFloeOk(['demo', 'generate', exportDir, '--seed', '21', '--rows', '900', '--tables', '2',
    '--append-round', '1', '--append-folders', '2']);
  for (const file of walk(exportDir)) {
    if (before.has(file) && !file.endsWith('manifest.json')) continue;
    await upload(serverPort, 'landing', `cda/${path.relative(exportDir, file)}`, fs.readFileSync(file));
  }
  const second = runFloe(['run', config, '--once'], { timeoutMs: 600_000 });
  assert.equal(second.status, 0, `the second run on S3 failed:\n${second.stderr}\n${second.stdout}`);
  const log = (await (await fetch(`${proxy}/__proxy/stats`)).json()).log;
  const listings = log.filter((entry) => entry.method === 'GET' && /list-type=2/.test(entry.url));
  assert.ok(listings.length > 0, 'the second run listed nothing');
  assert.ok(listings.every((entry) => /start-after=/.test(entry.url)),
    `a listing of the second run was not incremental: ${listings.map((e) => e.url).join(' ')}`);

  // floe table scan reads the S3 warehouse with the environment's S3 settings (no faults now).
  await fetch(`${proxy}/__proxy/reset`, { method: 'POST' });
  const env = {
    AWS_ENDPOINT_URL_S3: proxy,
    AWS_ACCESS_KEY_ID: KEY,
    AWS_SECRET_ACCESS_KEY: KEY,
    AWS_REGION: 'us-east-1',
  };
  const problems = [];
  for (const table of exportTables(exportDir)) {
    const { rows: expected, types } = await oracleRows(db, committedFiles(exportDir, table));
    const timestampColumns = new Set([...types].filter(([, type]) => /^TIMESTAMP/.test(type)).map(([c]) => c));
    const identifier = `cda.${table.toLowerCase()}`;
    const actual = floeRows(work, identifier, timestampColumns, {
      catalog: ['--catalog', `sqlite://${path.join(work, 'catalog.db')}`, '--warehouse', 's3://lake/warehouse'],
      env,
    });
    if (actual.duplicates.length) problems.push(`${identifier}: duplicate ids ${actual.duplicates.slice(0, 5)}`);
    problems.push(...compareRows(expected, actual.rows, { label: `${identifier} (S3)` }));
  }
  assert.deepEqual(problems, []);
});

