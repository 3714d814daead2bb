// The ledger in PostgreSQL ([state] uri) with the SQL catalog in the same
// database: a CDA export ingested by a continuous `floe run` equals the
// DuckDB oracle, every committed-folder file is committed exactly once (read
// back by `floe files` without the lock while the run holds it), each batch
// id is in one snapshot, and a second `floe run --once` of the pipeline joins
// as a worker that finds every table held by the first (its log names the
// ledger without the password).
// Skipped without FLOE_TEST_PG_URI (scripts/test.sh starts a server).
//
// Env: FLOE_BIN (required), FLOE_TEST_PG_URI.
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
let db;
let work;
before(async () => {
  serveLocalFilesToFetch();
  if (FLOE && PG_URI) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-pg-ledger-'));
});
after(() => {
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('a pipeline with its ledger and catalog in PostgreSQL equals the oracle; a second run is a worker with nothing to take', async (t) => {
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
  runFloeOk(['demo', 'generate', exportDir, '--seed', '7', '--rows', '1500', '--tables', '3', '--folders', '6',
    '--files-per-folder', '2']);
  const name = `pgledger_${process.pid}`;
  const config = writePipelineConfig(dir, exportDir, {
    name,
    catalog: { uri: PG_URI, name },
    stateUri: PG_URI,
    extra: '[trigger]\ninterval = "1s"\nmax_files_per_batch = 3\n',
  });
  const expected = exportTables(exportDir).flatMap((table) => committedFiles(exportDir, table));

  const daemon = startDaemon(config);
  try {
    // Wait until the run has committed every committed-folder file (read without the lock).
    let states = new Map();
    for (let i = 0; i < 240; ++i) {
      assert.equal(daemon.exit, null, `the run ended: ${logTail(daemon.log)}`);
      const listed = runFloe(['files', config, '--format', 'jsonl']);
      if (listed.status === 0) {
        states = new Map(listed.stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
          .map((f) => [f.uri, f.state]));
        if (expected.every((uri) => states.get(uri) === 'committed')) break;
      }
      await sleep(250);
    }
    for (const uri of expected) assert.equal(states.get(uri), 'committed', `${uri}: ${logTail(daemon.log)}`);

    // A second run of the pipeline is a second worker (docs/scale-out.md):
    // the first holds every table, so it finds none free, and ends cleanly.
    const second = runFloe(['run', config, '--once']);
    assert.equal(second.status, 0, `a second worker failed: ${second.stderr}`);
    assert.match(second.stderr, /scale-out: worker \S+ joined pipeline/);
    assert.doesNotMatch(second.stderr, /scale-out: took /);
    assert.match(second.stderr, /postgresql:\/\/floe:\*\*\*@/);
    assert.doesNotMatch(second.stderr, /floe:floe@/);
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
  assert.deepEqual(daemon.exit, { code: 0, signal: null }, `SIGTERM: ${logTail(daemon.log)}`);

  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir), []);
  const ledger = ledgerFiles(config);
  assert.equal(ledger.filter((f) => f.state !== 'committed').length, 0);
  assert.equal(new Set(ledger.map((f) => f.uri)).size, ledger.length);
  for (const table of exportTables(exportDir)) {
    const { stdout } = runFloeOk(['table', 'history', `cda.${table.toLowerCase()}`, ...catalogArgs(dir)]);
    const batches = [...stdout.matchAll(/floe\.batch-id[=:"\s]+(\d+)/g)].map((m) => m[1]);
    assert.ok(batches.length > 0, `${table}: no batch in its history`);
    assert.equal(new Set(batches).size, batches.length, `${table}: a batch committed in two snapshots`);
  }
  // Once released, the pipeline runs again (nothing left to do).
  const again = runFloeOk(['run', config, '--once']);
});
