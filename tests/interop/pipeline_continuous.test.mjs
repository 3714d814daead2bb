// Continuous `floe run` with real maintenance beside it: a 200 ms poll,
// compaction due every 2 commits of a table (so the background worker
// compacts while new folders keep landing), folders landed one round at a
// time, the daemon killed with SIGKILL at random moments and restarted, and
// finally stopped with SIGTERM (it must exit 0 within seconds). Then the
// tables must equal the DuckDB oracle with no duplicate keys, every
// committed-folder file must be committed exactly once in the ledger, each
// batch id must appear in at most one snapshot, and the daemons' logs must
// show at least one background compaction that committed.
//
// Env: FLOE_BIN (required), FLOE_CONTINUOUS_ROUNDS (default 12),
// FLOE_CONTINUOUS_SEED (default 20261130).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDuckDB } from '../tools/readers.mjs';
// Seeded (mulberry32), so a failing schedule can be replayed with its seed.
import { makeRng } from '../tools/random_parquet.mjs';
import {
  FLOE,
  catalogArgs,
  checkAgainstOracle,
  committedFiles,
  exportTables,
  ledgerFiles,
  runFloe,
  runFloeOk,
  serveLocalFilesToFetch,
  startDaemon,
  writePipelineConfig,
} from '../tools/pipeline_oracle.mjs';

const ROUNDS = Number(process.env.FLOE_CONTINUOUS_ROUNDS ?? 12);
let db;
let work;
before(async () => {
  serveLocalFilesToFetch();
  if (FLOE) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-continuous-'));
});
after(() => {
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));


test(`continuous run with background maintenance, ${ROUNDS} landings and kill -9s: nothing lost, nothing duplicated`, async (t) => {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return;
  }
  const random = makeRng(Number(process.env.FLOE_CONTINUOUS_SEED ?? 20261130)).next;
  const dir = fs.mkdtempSync(path.join(work, 'run-'));
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '7', '--rows', '2000', '--tables', '3', '--folders', '4',
    '--files-per-folder', '3', '--no-uncommitted-folder']);
  const config = writePipelineConfig(dir, exportDir, {
    name: 'continuous',
    extra: '[trigger]\ninterval = "200ms"\nmax_files_per_batch = 2\n[maintenance]\ncompact_every = 2\nmin_input_files = 2\n',
  });

  const logs = [];
  let daemon = startDaemon(config);
  let kills = 0;
  for (let round = 1; round <= ROUNDS; ++round) {
    await sleep(100 + random() * 600);
    runFloeOk(['demo', 'generate', exportDir, '--append-round', String(round), '--append-folders', '1']);
    if (daemon.exit) assert.fail(`floe run exited by itself (${JSON.stringify(daemon.exit)}):\n${daemon.log}`);
    if (random() < 0.35) {
      // Somewhere in ingestion or maintenance of this landing.
      await sleep(random() * 800);
      daemon.child.kill('SIGKILL');
      await daemon.exited;
      logs.push(daemon.log);
      ++kills;
      daemon = startDaemon(config);
    }
  }
  // Let the last landings and the maintenance they made due run, then stop.
  await sleep(3000);
  const asked = Date.now();
  daemon.child.kill('SIGTERM');
  const exit = await daemon.exited;
  const stopMs = Date.now() - asked;
  logs.push(daemon.log);
  t.diagnostic(`${kills} kills; SIGTERM to exit ${stopMs} ms`);
  assert.equal(exit.code, 0, `floe run did not stop cleanly (${JSON.stringify(exit)}):\n${daemon.log}`);
  assert.ok(stopMs < 10_000, `floe run took ${stopMs} ms to stop`);

  const all = logs.join('\n');
  const compactions = [...all.matchAll(/maintenance \S+ \((idle|overdue), background\): compaction: (\d+) data files[^\n]*snapshot \d+/g)];
  t.diagnostic(`background compactions that committed: ${compactions.length}; gave up: ${(all.match(/gave up/g) ?? []).length}`);
  assert.ok(compactions.length > 0, `no background compaction committed:\n${all}`);
  // A compaction may give up on a conflict (new data first); an ingest batch never fails on one.
  const lostBatches = all.split('\n').filter((line) => /validation failed/.test(line) && !/gave up/.test(line));
  assert.deepEqual(lostBatches, [], 'an ingest batch lost a race with maintenance');

  // Whatever the last kill left pending is applied by one more run.
  const final = runFloe(['run', config, '--once']);
  assert.equal(final.status, 0, `the final run failed:\n${final.stderr}\n${final.stdout}`);
  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir), []);

  const ledger = ledgerFiles(config);
  const expected = exportTables(exportDir).flatMap((table) => committedFiles(exportDir, table));
  const states = new Map(ledger.map((f) => [f.uri, f.state]));
  for (const uri of expected) assert.equal(states.get(uri), 'committed', `${uri} is ${states.get(uri)}`);
  assert.equal(ledger.filter((f) => f.state !== 'committed').length, 0);
  for (const table of exportTables(exportDir)) {
    const { stdout } = runFloeOk(['table', 'history', `cda.${table.toLowerCase()}`, ...catalogArgs(dir)]);
    const batches = [...stdout.matchAll(/floe\.batch-id[=:"\s]+(\d+)/g)].map((m) => m[1]);
    const seen = new Set();
    for (const batch of batches) {
      assert.ok(!seen.has(batch), `${table}: batch ${batch} committed in two snapshots`);
      seen.add(batch);
    }
  }
});
