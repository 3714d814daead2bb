// Event-driven discovery against moto (its S3 sends real-shaped event
// notifications to its SQS): files uploaded with boto3 (tests/tools/aws_driver.py)
// while `floe run` runs in notification mode land exactly once, and the tables
// equal the DuckDB oracle.
//
// prefix (S3 -> SNS -> SQS; a capture queue on the same topic keeps a copy of
// every notification): files that were ingested by a listing run before are
// not taken again when the pipeline switches to notifications (nor after it
// switches back); an upload whose notification is lost on purpose (bucket
// notifications off) is found by the periodic backfill listing; the test
// event, a file outside the prefix and a non-data file are consumed and
// ignored; captured notifications sent again (duplicates), one of them with
// S3 sequencers in reverse order (an older event arriving late), change
// nothing; an unreadable message is a counted warning and stays for the
// queue's redrive policy; floe is killed with SIGKILL after a batch committed
// and before the delete of its message (the proxy in front of SQS stalls that
// DeleteMessageBatch), and the redelivered message changes nothing.
// cda (S3 -> SQS): part files of a new folder wait until manifest.json commits
// it, and the manifest's notification (not a poll: the interval is 60 s)
// brings them in.
// two workers (with PostgreSQL): a message of a table the other worker holds
// is recorded for it and kept, never handed back (a redrive policy of one
// receive would lose it to the dead-letter queue).
// Skipped, saying so, where moto_server is not installed.
//
// Env: FLOE_BIN (required).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { motoMissingReason, startAwsDriver, startMoto } from '../tools/moto.mjs';
import { openDuckDB } from '../tools/readers.mjs';
import {
  FLOE,
  checkAgainstOracle,
  compareRows,
  committedFiles,
  exportTables,
  floeRows,
  ledgerFiles,
  oracleRows,
  runFloe,
  runFloeOk,
  serveLocalFilesToFetch,
  snapshotIds,
  startDaemon,
  startNodeTool,
  writePipelineConfig,
} from '../tools/pipeline_oracle.mjs';

const TOOLS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'tools');
const children = [];
let db;
let work;
let moto;

before(async () => {
  serveLocalFilesToFetch();  // icebird reads the tables' local files through fetch
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-notifications-'));
  if (FLOE && !motoMissingReason()) {
    db = await openDuckDB();
    moto = await startMoto({ log: path.join(work, 'moto.log') });
    aws = startAwsDriver(moto.url);
  }
});
after(async () => {
  for (const child of children) child.kill('SIGKILL');
  aws?.stop();
  await moto?.stop?.();
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function skipReason() {
  if (!FLOE || !fs.existsSync(FLOE)) return 'skipped: FLOE_BIN is not set or missing (build floe first)';
  const missing = motoMissingReason();
  return missing ? `skipped: ${missing}` : '';
}

// boto3 (tests/tools/aws_driver.py), one process for the whole file.
let aws;
const driver = (command) => aws.call(command);

// A continuous `floe run CONFIG`, killed at the end if still running.
function startFloe(config) {
  const daemon = startDaemon(config);
  children.push(daemon.child);
  return daemon;
}

async function waitUntil(what, predicate, { timeoutMs = 20_000, daemon } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    if (daemon?.exit) assert.fail(`floe run exited (${JSON.stringify(daemon.exit)}) while waiting for ${what}:\n${daemon.log}`);
    await sleep(250);
  }
  assert.fail(`timed out waiting for ${what}${daemon ? `; floe's log:\n${daemon.log}` : ''}`);
}

// Each file's ledger state; empty until the starting daemon has created its state (polling
// `floe files` before that failed the test when floe was slow to start).
const states = (config) => {
  if (!fs.existsSync(path.join(path.dirname(config), 'state'))) return new Map();
  return new Map(ledgerFiles(config).map((f) => [f.uri, f.state]));
};

function pipelineConfig(dir, { name, uri, format, notifications = '', trigger = 'interval = "1s"' }) {
  return writePipelineConfig(dir, null, {
    name,
    file: `${name}-${notifications ? 'notified' : 'listed'}.toml`,
    source: `${format}\nuri = "${uri}"\n${notifications}`,
    extra: `[s3]
endpoint = "${moto.url}"
region = "us-east-1"
access_key_id = "testing"
secret_access_key = "testing"
[trigger]
${trigger}
[maintenance]
enabled = false`,
  });
}

test('prefix in notification mode: every upload lands exactly once, whatever the queue does', async (t) => {
  const skip = skipReason();
  if (skip) return t.skip(skip);
  const dir = fs.mkdtempSync(path.join(work, 'prefix-'));
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '31', '--rows', '500', '--tables', '1', '--folders', '5',
    '--files-per-folder', '2', '--no-uncommitted-folder', '--no-schema-change', '--no-empty-folder']);
  const [table] = exportTables(exportDir);
  const files = committedFiles(exportDir, table);
  assert.ok(files.length >= 10, `the export has only ${files.length} files`);
  const keyOf = (file) => `events/${path.relative(path.join(exportDir, table), file)}`;
  const uriOf = (file) => `s3://landing/${keyOf(file)}`;
  const put = (file) => driver({ command: 's3-put-file', bucket: 'landing', key: keyOf(file), file });

  const setup = { command: 's3-notifications', bucket: 'landing', queue: 'floe-events', route: 'sns',
    capture_queue: 'capture' };
  const { queue_url: queueUrl, capture_queue_url: captureUrl } = await driver(setup);
  // floe reaches SQS through the proxy (which also checks every signature): it can stall a delete.
  const proxyPort = await startNodeTool([path.join(TOOLS, 'fault_proxy.mjs'), String(moto.port), 'testing'], children);
  const proxy = `http://127.0.0.1:${proxyPort}`;
  const format = 'format = "parquet"\nchanges = "cda"';
  const notifications = `queue_url = "${queueUrl}"\nsqs_endpoint = "${proxy}"\nbackfill_interval = "3s"\n` +
    'visibility_timeout = "3s"';
  const listed = pipelineConfig(dir, { name: 'events', uri: 's3://landing/events', format });
  const notified = pipelineConfig(dir, { name: 'events', uri: 's3://landing/events', format, notifications });
  const identifier = 'cda.events';
  const queueCounts = () => driver({ command: 'sqs-counts', queue_url: queueUrl });

  // 1. Two files ingested by a listing run; their notifications wait in the queue.
  for (const file of files.slice(0, 2)) await put(file);
  // floe validate of the notification config lists the files and leaves the queue alone
  // (compared once both uploads' notifications are in: two reads 300 ms apart agree).
  let queued = await queueCounts();
  await waitUntil('the queue to settle', async () => {
    await sleep(300);
    const again = await queueCounts();
    const settled = again.visible >= 2 && JSON.stringify(again) === JSON.stringify(queued);
    queued = again;
    return settled;
  });
  const validated = runFloe(['validate', notified]);
  assert.equal(validated.status, 0, validated.stderr);
  assert.match(validated.stdout, /: 2 pending units/, validated.stdout);
  assert.deepEqual(await queueCounts(), queued, 'floe validate took or hid queue messages');
  runFloeOk(['run', listed, '--once']);
  const afterListing = snapshotIds(dir, identifier).length;
  assert.ok(afterListing > 0);

  // 2. Switched to notifications: the start listing and the queued messages take nothing again.
  let daemon = startFloe(notified);
  await waitUntil('the queued notifications to be consumed', async () => {
    const counts = await queueCounts();
    return counts.visible === 0 && counts.in_flight === 0;
  }, { daemon });
  assert.equal(snapshotIds(dir, identifier).length, afterListing, 'switching to notifications reprocessed files');

  // 3. Uploads while it runs; a file outside the prefix and a non-data file are ignored.
  for (const file of files.slice(2, 4)) await put(file);
  await driver({ command: 's3-put-file', bucket: 'landing', key: 'other/x.parquet', file: files[0] });
  await driver({ command: 's3-put', bucket: 'landing', key: 'events/_SUCCESS', body: '' });
  await waitUntil('files 3 and 4 to be committed', () => {
    const now = states(notified);
    return files.slice(2, 4).every((file) => now.get(uriOf(file)) === 'committed');
  }, { daemon });

  // 4. A notification lost on purpose: the periodic backfill listing finds the file.
  await driver({ command: 's3-notifications-off', bucket: 'landing' });
  await put(files[4]);
  await driver(setup);  // notifications back on (also a new test event)
  await waitUntil('the backfill listing to commit file 5', () => states(notified).get(uriOf(files[4])) === 'committed',
    { daemon });

  // 5. Duplicates, an older event arriving late, a test event and an unreadable message.
  await waitUntil('the queue to be drained', async () => {
    const counts = await queueCounts();
    return counts.visible === 0 && counts.in_flight === 0;
  }, { daemon });
  const before = snapshotIds(dir, identifier).length;
  const captured = await driver({ command: 'sqs-receive-all', queue_url: captureUrl });
  const byKey = new Map();
  for (const body of captured) {
    const inner = JSON.parse(JSON.parse(body).Message);
    for (const record of inner.Records ?? []) byKey.set(decodeURIComponent(record.s3.object.key.replace(/\+/g, ' ')), body);
  }
  for (const file of files.slice(0, 4)) assert.ok(byKey.has(keyOf(file)), `no notification captured for ${keyOf(file)}`);
  await driver({ command: 'sqs-send', queue_url: queueUrl, body: byKey.get(keyOf(files[2])) });
  await driver({ command: 'sqs-send', queue_url: queueUrl, body: byKey.get(keyOf(files[0])) });
  const withSequencer = (body, sequencer) => {
    const envelope = JSON.parse(body);
    const inner = JSON.parse(envelope.Message);
    inner.Records[0].s3.object.sequencer = sequencer;
    envelope.Message = JSON.stringify(inner);
    return JSON.stringify(envelope);
  };
  await driver({ command: 'sqs-send', queue_url: queueUrl, body: withSequencer(byKey.get(keyOf(files[3])), '0062E99A88DC407460') });
  await driver({ command: 'sqs-send', queue_url: queueUrl, body: withSequencer(byKey.get(keyOf(files[3])), '0062E99A88DC4074') });
  await driver({ command: 'sqs-send', queue_url: queueUrl,
    body: JSON.stringify({ Service: 'Amazon S3', Event: 's3:TestEvent', Time: new Date().toISOString(), Bucket: 'landing' }) });
  await driver({ command: 'sqs-send', queue_url: queueUrl, body: 'this is not an S3 event' });
  await waitUntil('the unreadable message to be reported', () => /not an S3 event notification floe can read/.test(daemon.log),
    { daemon });
  // Everything but the unreadable message is deleted; it keeps coming back (no redrive policy here).
  await waitUntil('the other messages to be deleted', async () => {
    const counts = await queueCounts();
    return counts.visible + counts.in_flight === 1;
  }, { daemon });
  assert.equal(snapshotIds(dir, identifier).length, before, 'duplicate or late notifications changed the table');

  // 6. kill -9 after a commit, before the delete of its message.
  await fetch(`${proxy}/__proxy/reset`, { method: 'POST' });
  await fetch(`${proxy}/__proxy/faults`, { method: 'POST', body: JSON.stringify(['AmazonSQS.DeleteMessageBatch:stall']) });
  await put(files[5]);
  await waitUntil('the delete after the commit to stall', async () => {
    const stats = await (await fetch(`${proxy}/__proxy/stats`)).json();
    return stats.log.some((entry) => entry.fault === 'stall');
  }, { daemon });
  daemon.child.kill('SIGKILL');
  await daemon.exited;
  assert.equal(states(notified).get(uriOf(files[5])), 'committed', 'the message was deleted before its batch committed');
  const atKill = snapshotIds(dir, identifier).length;
  const stats = await (await fetch(`${proxy}/__proxy/stats`)).json();
  assert.equal(stats.signatureFailures, 0, 'floe sent SQS requests with bad SigV4 signatures');
  const killedLog = daemon.log;
  daemon = startFloe(notified);
  // The message comes back after its visibility timeout and is deleted; nothing is applied again.
  await waitUntil('the redelivered message to be deleted', async () => {
    const counts = await queueCounts();
    return counts.visible + counts.in_flight === 1;
  }, { daemon });
  assert.equal(snapshotIds(dir, identifier).length, atKill, 'the redelivered message was applied again');

  // 7. The rest lands; SIGTERM stops the long poll at once.
  for (const file of files.slice(6)) await put(file);
  await waitUntil('every file to be committed', () => {
    const now = states(notified);
    return files.every((file) => now.get(uriOf(file)) === 'committed');
  }, { daemon, timeoutMs: 30_000 });
  const asked = Date.now();
  daemon.child.kill('SIGTERM');
  const exit = await daemon.exited;
  assert.equal(exit.code, 0, `floe run did not stop cleanly (${JSON.stringify(exit)}):\n${daemon.log}`);
  assert.ok(Date.now() - asked < 5000, `floe run took ${Date.now() - asked} ms to stop`);
  const log = killedLog + daemon.log;
  assert.doesNotMatch(log, /changed after it was ingested/);

  // The table equals the oracle; every file was committed once, nothing else was taken.
  const { rows: expected, types } = await oracleRows(db, files);
  const timestampColumns = new Set([...types].filter(([, type]) => /^TIMESTAMP/.test(type)).map(([c]) => c));
  const actual = floeRows(dir, identifier, timestampColumns);
  assert.deepEqual(actual.duplicates, []);
  assert.deepEqual(compareRows(expected, actual.rows, { label: identifier }), []);
  const ledger = ledgerFiles(notified);
  assert.deepEqual(ledger.map((f) => f.uri).sort(), files.map(uriOf).sort());
  assert.ok(ledger.every((f) => f.state === 'committed'));
  const { stdout } = runFloeOk(['table', 'history', identifier, '--catalog', `sqlite://${path.join(dir, 'catalog.db')}`,
    '--warehouse', path.join(dir, 'warehouse')]);
  const batches = [...stdout.matchAll(/floe\.batch-id[=:"\s]+(\d+)/g)].map((m) => m[1]);
  assert.equal(new Set(batches).size, batches.length, 'a batch id is in two snapshots');
  // Back to listing: nothing is new.
  const final = snapshotIds(dir, identifier).length;
  runFloeOk(['run', listed, '--once']);
  assert.equal(snapshotIds(dir, identifier).length, final, 'switching back to listing reprocessed files');
});

test('cda in notification mode: a folder lands when manifest.json commits it', async (t) => {
  const skip = skipReason();
  if (skip) return t.skip(skip);
  const dir = fs.mkdtempSync(path.join(work, 'cda-'));
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '32', '--rows', '300', '--tables', '2', '--folders', '2',
    '--files-per-folder', '2']);
  const walk = (folder) => fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
  const upload = async (files) => {
    for (const file of files) {
      await driver({ command: 's3-put-file', bucket: 'cda-landing', key: `cda/${path.relative(exportDir, file)}`, file });
    }
  };
  const { queue_url: queueUrl } = await driver({ command: 's3-notifications', bucket: 'cda-landing', queue: 'cda-events',
    route: 'direct' });
  // The first export is there before floe starts (its start listing takes it), manifest last.
  const uploaded = new Set(walk(exportDir));
  await upload([...uploaded].filter((file) => !file.endsWith('manifest.json')));
  await upload([path.join(exportDir, 'manifest.json')]);
  const config = pipelineConfig(dir, { name: 'cda-notified', uri: 's3://cda-landing/cda', format: 'format = "cda"',
    notifications: `queue_url = "${queueUrl}"\nvisibility_timeout = "5s"\nwait_time = "2s"`, trigger: 'interval = "60s"' });
  const daemon = startFloe(config);
  const uriOf = (file) => `s3://cda-landing/cda/${path.relative(exportDir, file)}`;
  const committed = (files) => {
    const now = states(config);
    return files.every((file) => now.get(uriOf(file)) === 'committed');
  };
  const firstRound = exportTables(exportDir).flatMap((table) => committedFiles(exportDir, table));
  await waitUntil('the first export to be committed', () => committed(firstRound), { daemon });

  // A new round: its part files first, which wait; then the manifest that commits them.
  runFloeOk(['demo', 'generate', exportDir, '--append-round', '1', '--append-folders', '1']);
  const added = walk(exportDir).filter((file) => !uploaded.has(file) && !file.endsWith('manifest.json'));
  const newRound = exportTables(exportDir).flatMap((table) => committedFiles(exportDir, table))
    .filter((file) => !firstRound.includes(file));
  assert.ok(newRound.length > 0);
  await upload(added);
  await sleep(2000);
  const waiting = states(config);
  for (const file of newRound) assert.equal(waiting.get(uriOf(file)), undefined, `${file} was taken before its folder committed`);
  await upload([path.join(exportDir, 'manifest.json')]);
  await waitUntil('the new round to be committed', () => committed(newRound), { daemon, timeoutMs: 15_000 });
  // Only the part files of folders the manifest does not commit yet are still held.
  const final = exportTables(exportDir).flatMap((table) => committedFiles(exportDir, table));
  const uncommitted = walk(exportDir).filter((file) => file.endsWith('.parquet') && !final.includes(file));
  await waitUntil('the queue to be drained', async () => {
    const counts = await driver({ command: 'sqs-counts', queue_url: queueUrl });
    return counts.visible === 0 && counts.in_flight === uncommitted.length;
  }, { daemon });
  daemon.child.kill('SIGTERM');
  const exit = await daemon.exited;
  assert.equal(exit.code, 0, `floe run did not stop cleanly:\n${daemon.log}`);
  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir, { icebird: false }), []);
});

// Scale-out (docs/scale-out.md): two workers share one queue and a
// PostgreSQL ledger + catalog. A notification reaches one worker whatever
// table it announces; a file of a table the other worker holds is recorded
// in the shared ledger for its holder, and the message is kept until the
// file is committed, never handed back. The queue's redrive policy moves a
// message received twice to its dead-letter queue, and the backfill listing
// runs only at the start, so a file whose message went round would not land:
// every upload must land once, the queue and its dead-letter queue end
// empty, and every table equals the DuckDB oracle.
test('prefix in notification mode with two workers: every upload lands once, each message received once', async (t) => {
  const skip = skipReason() || (process.env.FLOE_TEST_PG_URI ? ''
    : 'skipped: FLOE_TEST_PG_URI is not set (scripts/test.sh starts a PostgreSQL server and sets it)');
  if (skip) return t.skip(skip);
  const pgUri = process.env.FLOE_TEST_PG_URI;
  const dir = fs.mkdtempSync(path.join(work, 'workers-'));
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '33', '--rows', '300', '--tables', '6', '--folders', '3',
    '--files-per-folder', '2', '--no-uncommitted-folder', '--no-schema-change', '--no-empty-folder']);
  const files = exportTables(exportDir).flatMap((table) => committedFiles(exportDir, table));
  const keyOf = (file) => `zone/${path.relative(exportDir, file)}`;
  const uriOf = (file) => `s3://fleet/${keyOf(file)}`;
  const { queue_url: queueUrl, dlq_url: dlqUrl } = await driver({ command: 'sqs-create', queue: 'fleet-events',
    max_receives: 1 });
  await driver({ command: 's3-notifications', bucket: 'fleet', queue: 'fleet-events', route: 'direct' });
  const name = `fleet_${process.pid}`;
  const base = writePipelineConfig(dir, null, {
    name,
    catalog: { uri: pgUri, name },
    stateUri: pgUri,
    source: `format = "parquet"\nchanges = "cda"\nuri = "s3://fleet/zone"\ntable_from_path = "{table}/**"\n` +
      `queue_url = "${queueUrl}"\nsqs_endpoint = "${moto.url}"\nbackfill_interval = "0s"\nvisibility_timeout = "4s"\n` +
      'wait_time = "1s"',
    extra: `[s3]\nendpoint = "${moto.url}"\nregion = "us-east-1"\naccess_key_id = "testing"\nsecret_access_key = "testing"\n` +
      '[trigger]\ninterval = "500ms"\n[maintenance]\nenabled = false',
  });
  const workers = ['a', 'b'].map((label) => {
    const config = path.join(dir, `worker-${label}.toml`);
    fs.writeFileSync(config, fs.readFileSync(base, 'utf8')
      .replace(`dir = "${path.join(dir, 'state')}"`, `dir = "${path.join(dir, `state-${label}`)}"`)
      .replace('[state]\n', '[state]\nlease_timeout = "5s"\n'));
    return { label, config };
  });
  // Folder by folder, every table at once: each message names one file. The
  // first folder is there before the workers start (their start listing
  // finds the tables, which they share); the others come by notification only.
  const rounds = [];  // rounds[i]: the i-th folder of every table
  for (const table of exportTables(exportDir)) {
    const tableFiles = committedFiles(exportDir, table);
    const folders = [...new Set(tableFiles.map((file) => path.dirname(file)))].sort();
    folders.forEach((folder, i) => {
      rounds[i] = [...(rounds[i] ?? []), ...tableFiles.filter((file) => path.dirname(file) === folder)];
    });
  }
  const [first, ...later] = rounds;
  const upload = async (round) => {
    for (const file of round) await driver({ command: 's3-put-file', bucket: 'fleet', key: keyOf(file), file });
  };
  await upload(first);
  for (const w of workers) w.daemon = startFloe(w.config);
  const logs = () => workers.map((w) => `--- worker ${w.label}\n${w.daemon.log.split('\n').slice(-30).join('\n')}`).join('\n');
  try {
    await waitUntil('both workers to hold tables', () => workers.every((w) => /scale-out: took /.test(w.daemon.log)),
      { timeoutMs: 30_000 }).catch((e) => assert.fail(`${e.message}\n${logs()}`));
    assert.ok(later.length >= 2, `only ${later.length} folders come by notification`);
    for (const round of later) {
      await upload(round);
      await sleep(300);
    }
    const ledgerStates = () => new Map(ledgerFiles(workers[0].config).map((f) => [f.uri, f.state]));
    try {
      await waitUntil(`all ${files.length} uploads to be committed`, () => {
        const now = ledgerStates();
        return files.every((file) => now.get(uriOf(file)) === 'committed');
      }, { timeoutMs: 90_000 });
      await waitUntil('the queue to be drained', async () => {
        const counts = await driver({ command: 'sqs-counts', queue_url: queueUrl });
        return counts.visible === 0 && counts.in_flight === 0;
      }, { timeoutMs: 30_000 });
    } catch (e) {
      const dlq = await driver({ command: 'sqs-counts', queue_url: dlqUrl });
      assert.fail(`${e.message}\ndead-letter queue: ${JSON.stringify(dlq)}\n${logs()}`);
    }
    assert.deepEqual(await driver({ command: 'sqs-counts', queue_url: dlqUrl }), { visible: 0, in_flight: 0 },
      'a notification was received twice (handed back to the queue)');
    for (const w of workers) assert.ok(!w.daemon.exit, `worker ${w.label} exited:\n${logs()}`);
  } finally {
    for (const w of workers) if (!w.daemon.exit) w.daemon.child.kill('SIGTERM');
    for (const w of workers) await w.daemon.exited;
  }
  const ledger = ledgerFiles(workers[0].config);
  assert.equal(new Set(ledger.map((f) => f.uri)).size, ledger.length);
  assert.equal(ledger.length, files.length, 'files in the ledger besides the uploads');
  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir), []);
});
