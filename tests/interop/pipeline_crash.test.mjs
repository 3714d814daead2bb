// Crash safety: `floe run --once` is killed with SIGKILL at random moments
// while it ingests (FLOE_CRASH_ITERATIONS times, 20 by default; 100 in the
// long mode), restarted each time, and finally run to completion. The
// tables must then equal the DuckDB oracle with no duplicate keys, every
// committed-folder file must be committed exactly once in the ledger, and
// each batch id must appear in at most one snapshot. Small batches make
// many key index runs, so kills also land in the index's merges (each run
// finishes its due merges before it ends): the final run must find every
// table's index intact (no rebuild, no file ignored). The same runs once more
// with the ledger and the SQL catalog in PostgreSQL ([state] uri; fewer kills,
// FLOE_PG_CRASH_ITERATIONS, 5 by default), skipped without FLOE_TEST_PG_URI.
//
// Env: FLOE_BIN (required), FLOE_CRASH_ITERATIONS (default 20),
// FLOE_PG_CRASH_ITERATIONS (default 5), FLOE_CRASH_SEED (default 20261130),
// FLOE_TEST_PG_URI (scripts/test.sh starts a server).
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
  runAndKill,
  runFloe,
  runFloeOk,
  serveLocalFilesToFetch,
  writePipelineConfig,
} from '../tools/pipeline_oracle.mjs';

const ITERATIONS = Number(process.env.FLOE_CRASH_ITERATIONS ?? 20);
const PG_ITERATIONS = Number(process.env.FLOE_PG_CRASH_ITERATIONS ?? 5);
const PG_URI = process.env.FLOE_TEST_PG_URI ?? '';
let db;
let work;
before(async () => {
  serveLocalFilesToFetch();
  if (FLOE) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-crash-'));
});
after(() => {
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// `postgres`: the ledger and the catalog in the PostgreSQL database PG_URI,
// under pipeline and catalog names of this process.
async function killAtRandomMoments(t, iterations, { postgres = false } = {}) {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return;
  }
  if (postgres && !PG_URI) {
    t.skip('skipped: FLOE_TEST_PG_URI is not set (scripts/test.sh starts a PostgreSQL server and sets it)');
    return;
  }
  const onPostgres = (name) =>
    postgres ? { name, catalog: { uri: PG_URI, name }, stateUri: PG_URI } : { name: 'crash' };
  const random = makeRng(Number(process.env.FLOE_CRASH_SEED ?? 20261130)).next;
  const dir = fs.mkdtempSync(path.join(work, 'crash-'));
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '5', '--rows', '2500', '--tables', '3', '--folders', '14',
    '--files-per-folder', '3']);
  // Small batches: many commits, so kills land before, during and after them.
  const config = writePipelineConfig(dir, exportDir, {
    ...onPostgres(`crash_${process.pid}`), extra: '[trigger]\nmax_files_per_batch = 2\n' });

  // Time an uninterrupted run on a copy to spread the kills over a run's length.
  const probeDir = fs.mkdtempSync(path.join(work, 'probe-'));
  const probeConfig = writePipelineConfig(probeDir, exportDir, onPostgres(`probe_${process.pid}`));
  const started = Date.now();
  runFloeOk(['run', probeConfig, '--once', '--quiet']);
  const fullRunMs = Math.max(200, Date.now() - started);

  let killed = 0;
  const outcomes = [];
  for (let i = 0; i < iterations; ++i) {
    // A few kills (PostgreSQL) are spread in strata over the run, so that some land after commits.
    const delay = postgres ? Math.floor(10 + ((i + random()) / iterations) * fullRunMs * 1.2)
      : Math.floor(10 + random() * fullRunMs * 0.6);
    const outcome = await runAndKill(config, delay);
    if (outcome.signal === 'SIGKILL') ++killed;
    else if (outcome.code !== 0) {
      assert.fail(`run ${i} (kill after ${delay} ms) failed by itself with exit ${outcome.code}:\n${outcome.stderr}`);
    }
    outcomes.push(`${delay}ms:${outcome.signal ?? outcome.code}`);
  }
  t.diagnostic(`full run ${fullRunMs} ms; ${killed}/${iterations} runs killed: ${outcomes.join(' ')}`);
  assert.ok(killed >= Math.min(iterations, 5), `only ${killed} runs were killed mid-way: the test proves little`);

  // The killed runs made progress (batches committed between kills), so kills hit a moving pipeline.
  const committedUnderKills = ledgerFiles(config).filter((f) => f.state === 'committed').length;
  t.diagnostic(`files committed by the killed runs: ${committedUnderKills}`);
  assert.ok(committedUnderKills > 0, 'no killed run got as far as a commit: the kills came too early');

  const final = runFloe(['run', config, '--once']);
  assert.equal(final.status, 0, `the final run failed:\n${final.stderr}\n${final.stdout}`);
  // Kills inside key index merges and saves never cost the index: it is never rebuilt from the table.
  assert.doesNotMatch(`${final.stderr}${final.stdout}`, /rebuilt from the table|ignoring key index/);

  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir), []);

  // Ledger: every committed-folder file committed exactly once, nothing else pending.
  const ledger = ledgerFiles(config);
  const expected = exportTables(exportDir).flatMap((table) => committedFiles(exportDir, table));
  const states = new Map(ledger.map((f) => [f.uri, f.state]));
  for (const uri of expected) assert.equal(states.get(uri), 'committed', `${uri} is ${states.get(uri)}`);
  assert.equal(ledger.filter((f) => f.state !== 'committed').length, 0);

  // Each batch id in at most one snapshot of each table.
  for (const table of exportTables(exportDir)) {
    const { stdout } = runFloeOk(['table', 'history', `cda.${table.toLowerCase()}`, ...catalogArgs(dir)]);
    const batches = [...stdout.matchAll(/floe\.batch-id[=:"\s]+(\d+)/g)].map((m) => m[1]);
    const seen = new Set();
    for (const batch of batches) {
      assert.ok(!seen.has(batch), `${table}: batch ${batch} committed in two snapshots`);
      seen.add(batch);
    }
  }
}

test(`kill -9 at random moments (${ITERATIONS} times): nothing lost, nothing duplicated`, async (t) => {
  await killAtRandomMoments(t, ITERATIONS);
});

test(`kill -9 at random moments with the ledger and catalog in PostgreSQL (${PG_ITERATIONS} times)`, async (t) => {
  await killAtRandomMoments(t, PG_ITERATIONS, { postgres: true });
});
