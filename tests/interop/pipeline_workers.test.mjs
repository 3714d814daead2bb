// Scale-out (docs/scale-out.md): three `floe run` workers of one pipeline on
// one PostgreSQL ledger + SQL catalog (the same database) ingest a 12-table
// CDA export while folders keep landing. One worker is killed with SIGKILL;
// another is SIGSTOPped for longer than [state] lease_timeout and then
// SIGCONTed: it must notice it was declared dead, commit nothing under its
// old leases, and rejoin with new ones. At the end every table equals the
// DuckDB oracle (read by floe and icebird), every committed-folder file is
// committed exactly once, no batch id is in two snapshots, every table's
// floe.lease-epoch (on ingest and maintenance snapshots) never decreases along
// its history (one owner at a time).
// A killed worker of the same machine is seen gone at once (its pid); the
// paused one only by its missing heartbeats, and that takeover must take at
// most lease_timeout + one poll (plus scheduling slack; the figure is printed).
// Skipped without FLOE_TEST_PG_URI (scripts/test.sh starts a server).
//
// Env: FLOE_BIN (required), FLOE_TEST_PG_URI, FLOE_WORKERS_ROUNDS (landings, default 6).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDuckDB } from '../tools/readers.mjs';
import {
  FLOE,
  catalogArgs,
  checkAgainstOracle,
  committedFiles,
  exportTables,
  ledgerFiles,
  logTail,
  runFloe,
  runFloeOk,
  serveLocalFilesToFetch,
  startDaemon,
  writePipelineConfig,
} from '../tools/pipeline_oracle.mjs';

const PG_URI = process.env.FLOE_TEST_PG_URI ?? '';
const ROUNDS = Number(process.env.FLOE_WORKERS_ROUNDS ?? 6);
const LEASE_TIMEOUT_MS = 3000;
const INTERVAL_MS = 500;
let db;
let work;
before(async () => {
  serveLocalFilesToFetch();
  if (FLOE && PG_URI) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-workers-'));
});
after(() => {
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what, predicate, timeoutMs, workers) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (predicate()) return;
    if (workers.every((w) => w.daemon.exit)) break;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}:\n${workers.map((w) => `--- ${w.name}\n${logTail(w.daemon.log, 40)}`).join('\n')}`);
}

const workerIdOf = (log) => /scale-out: worker (\S+) joined/.exec(log)?.[1];
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('three workers share a pipeline through PostgreSQL: a kill and a pause lose nothing and commit nothing twice', async (t) => {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return;
  }
  if (!PG_URI) {
    t.skip('skipped: FLOE_TEST_PG_URI is not set (scripts/test.sh starts a PostgreSQL server and sets it)');
    return;
  }
  const dir = fs.mkdtempSync(path.join(work, 'run-'));
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '11', '--rows', '300', '--tables', '12', '--folders', '3',
    '--files-per-folder', '2', '--no-uncommitted-folder']);
  const name = `workers_${process.pid}`;
  const config = writePipelineConfig(dir, exportDir, {
    name,
    catalog: { uri: PG_URI, name },
    stateUri: PG_URI,
    // Maintenance every third commit, so compactions run among the takeovers.
    extra: `[trigger]\ninterval = "${INTERVAL_MS}ms"\nmax_files_per_batch = 2\n[maintenance]\ncompact_every = 3\nmin_input_files = 2\n`,
  });
  fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('[state]\n',
    `[state]\nlease_timeout = "${LEASE_TIMEOUT_MS}ms"\n`));
  assert.match(fs.readFileSync(config, 'utf8'), /lease_timeout/);

  // Each worker its own state dir (its key indexes), as on separate machines.
  const workers = ['a', 'b', 'c'].map((label) => {
    const own = path.join(dir, `pipeline-${label}.toml`);
    fs.writeFileSync(own, fs.readFileSync(config, 'utf8').replace(`dir = "${path.join(dir, 'state')}"`,
      `dir = "${path.join(dir, `state-${label}`)}"`));
    return { name: label, config: own, logs: [] };
  });
  const start = (worker) => {
    worker.daemon = startDaemon(worker.config);
    return worker;
  };
  for (const worker of workers) {
    start(worker);
    await sleep(300);
  }
  const [a, b, c] = workers;
  try {
    // All three hold tables before anything bad happens.
    await waitFor('every worker to take tables', () => workers.every((w) => /scale-out: took /.test(w.daemon.log)),
      60_000, workers);

    let killedAt = 0;
    let idA = '';
    for (let round = 1; round <= ROUNDS; ++round) {
      runFloeOk(['demo', 'generate', exportDir, '--append-round', String(round), '--append-folders', '1']);
      await sleep(400);
      for (const w of workers) {
        if (w.daemon.exit && !(w === a && killedAt)) assert.fail(`worker ${w.name} exited: ${JSON.stringify(w.daemon.exit)}\n${logTail(w.daemon.log)}`);
      }
      if (round === 2) {
        idA = workerIdOf(a.daemon.log);
        assert.ok(idA, `worker a logged no id:\n${logTail(a.daemon.log)}`);
        a.daemon.child.kill('SIGKILL');
        killedAt = Date.now();
        await a.daemon.exited;
        // A survivor on this machine sees at once that a's process is gone.
        const gone = new RegExp(`worker ${escape(idA)} (ran on this machine and has exited|sent no heartbeat)`);
        await waitFor('the survivors to take the killed worker\'s tables', () => gone.test(b.daemon.log + c.daemon.log),
          LEASE_TIMEOUT_MS + INTERVAL_MS + 30_000, workers);
        t.diagnostic(`takeover after SIGKILL (same machine): ${Date.now() - killedAt} ms`);
      }
      if (round === 4) {
        // A zombie: paused past its lease, then woken while the others have its tables.
        // Its process still exists, so only the missing heartbeats make it dead: the
        // takeover after lease_timeout + one poll that a lost machine would see.
        const idB = workerIdOf(b.daemon.log);
        const stoppedAt = Date.now();
        b.daemon.child.kill('SIGSTOP');
        const silent = new RegExp(`worker ${escape(idB)} sent no heartbeat`);
        await waitFor('worker c to declare the paused worker dead', () => silent.test(c.daemon.log), 30_000, workers);
        const takeoverMs = Date.now() - stoppedAt;
        t.diagnostic(`takeover after SIGSTOP: ${takeoverMs} ms (lease_timeout ${LEASE_TIMEOUT_MS} ms, poll ${INTERVAL_MS} ms)`);
        // lease_timeout + one poll, plus 2 s for a poll busy with a batch and this test's own 100 ms polling.
        assert.ok(takeoverMs <= LEASE_TIMEOUT_MS + INTERVAL_MS + 2000, `takeover took ${takeoverMs} ms`);
        await sleep(Math.max(0, LEASE_TIMEOUT_MS * 2 - takeoverMs));
        b.daemon.child.kill('SIGCONT');
        await waitFor('the woken worker to learn it was declared dead and rejoin',
          () => /declared dead[\s\S]*joined again as worker/.test(b.daemon.log), 30_000, workers);
      }
    }
    // Every committed-folder file committed, as the ledger says.
    const expected = exportTables(exportDir).flatMap((table) => committedFiles(exportDir, table));
    await waitFor('every file to be committed', () => {
      const listed = runFloe(['files', c.config, '--format', 'jsonl']);
      if (listed.status !== 0) return false;
      const states = new Map(listed.stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
        .map((f) => [f.uri, f.state]));
      return expected.every((uri) => states.get(uri) === 'committed');
    }, 120_000, workers);
    // The woken worker got tables again, under new epochs.
    await waitFor('the rejoined worker to take tables again',
      () => /joined again as worker[\s\S]*scale-out: took /.test(b.daemon.log), 30_000, workers);
    // `floe status` shows the two live workers and every table's lease (holder, epoch, age).
    const status = runFloeOk(['status', c.config, '--json', '--no-tables']);
    const report = JSON.parse(status.stdout);
    const live = new Set(report.workers.map((w) => w.worker));
    assert.equal(live.size, 2, `workers: ${status.stdout}`);
    assert.ok(live.has(workerIdOf(c.daemon.log)));
    assert.equal(report.leases.length, 12);
    for (const lease of report.leases) {
      assert.ok(live.has(lease.worker), `${lease.table} is held by ${lease.worker}, not a live worker`);
      assert.ok(lease.epoch >= 1 && lease.held_for_ms >= 0);
    }
    const text = runFloeOk(['status', c.config, '--no-tables']).stdout;
    assert.match(text, /2 workers \(\[state\] uri\)/);
    assert.match(text, /table\s+worker\s+epoch\s+held for/);
  } finally {
    for (const w of workers) {
      if (w.daemon.exit) continue;
      w.daemon.child.kill('SIGCONT');
      w.daemon.child.kill('SIGTERM');
    }
    for (const w of workers) await w.daemon.exited;
  }
  for (const w of [b, c]) {
    assert.deepEqual(w.daemon.exit, { code: 0, signal: null }, `worker ${w.name} on SIGTERM: ${logTail(w.daemon.log)}`);
  }
  // The zombie's batch in flight, if any, was refused, never committed.
  const refused = (b.daemon.log.match(/refused: worker|is no longer current|not leased to this worker/g) ?? []).length;
  t.diagnostic(`the woken worker's refused writes: ${refused}`);

  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir), []);
  const ledger = ledgerFiles(c.config);
  assert.equal(ledger.filter((f) => f.state !== 'committed').length, 0,
    `not committed: ${JSON.stringify(ledger.filter((f) => f.state !== 'committed').slice(0, 5))}`);
  assert.equal(new Set(ledger.map((f) => f.uri)).size, ledger.length);
  let owners = 0;
  let maintenanceCommits = 0;
  for (const table of exportTables(exportDir)) {
    const { stdout } = runFloeOk(['table', 'history', `cda.${table.toLowerCase()}`, ...catalogArgs(dir)]);
    // snapshot-id, parent-id, sequence, timestamp, operation, summary (key=value, ...); by sequence number.
    const snapshots = stdout.split('\n').slice(1).filter((l) => l.trim()).map((l) => l.split('\t'))
      .map((cols) => ({ sequence: Number(cols[2]),
        summary: Object.fromEntries((cols[5] ?? '').split(', ').map((kv) => kv.split('='))) }))
      .sort((x, y) => x.sequence - y.sequence);
    const batches = snapshots.map((s) => s.summary['floe.batch-id']).filter((id) => id !== undefined);
    assert.ok(batches.length > 0, `${table}: no batch in its history`);
    assert.equal(new Set(batches).size, batches.length, `${table}: a batch committed in two snapshots`);
    // Ingest and maintenance commits alike carry the epoch they were fenced under.
    const workerCommits = snapshots.filter((s) => s.summary['floe.batch-id'] !== undefined || s.summary['floe.maintenance'] !== undefined);
    const epochs = workerCommits.map((s) => s.summary['floe.lease-epoch']).filter((e) => e !== undefined).map(Number);
    assert.equal(epochs.length, workerCommits.length, `${table}: an ingest or maintenance snapshot without floe.lease-epoch`);
    for (let i = 1; i < epochs.length; ++i) {
      assert.ok(epochs[i] >= epochs[i - 1], `${table}: lease epoch went from ${epochs[i - 1]} back to ${epochs[i]} (two owners at once)`);
    }
    owners += new Set(epochs).size;
    maintenanceCommits += workerCommits.length - batches.length;
  }
  t.diagnostic(`distinct lease epochs across the tables' histories: ${owners}; maintenance snapshots: ${maintenanceCommits}`);
  assert.ok(maintenanceCommits > 0, 'no maintenance commit ran: the test did not exercise fenced maintenance');
});
