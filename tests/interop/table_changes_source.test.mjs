// A floe table's change feed as a pipeline's source (silver -> gold,
// [source] discovery = "table_changes"): a CDA export is ingested into
// silver over several rounds of random batches (inserts, updates, deletes,
// late changes; compaction commits in between), and after each round a gold
// pipeline reading silver's changes must hold exactly silver's current rows
// — checked against the DuckDB oracle over the export through floe's scan
// and icebird (an independent Iceberg reader applying the position
// deletes) — with a [transform] filter on one gold pipeline (a filtered
// change is a delete of its key). Kill -9 of the gold run at random moments
// (FLOE_FEED_KILLS times, 4 by default) must lose and duplicate nothing,
// and a gold pipeline whose source history was expired past its position
// stops that table with an error naming it.
//
// Env: FLOE_BIN (required), FLOE_FEED_KILLS (default 4), FLOE_FEED_SEED.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDuckDB } from '../tools/readers.mjs';
import { makeRng } from '../tools/random_parquet.mjs';
import {
  FLOE,
  catalogArgs,
  checkAgainstOracle,
  exportTables,
  runAndKill,
  runFloe,
  runFloeOk,
  serveLocalFilesToFetch,
  skipWithoutFloe,
  snapshotIds,
  writePipelineConfig,
} from '../tools/pipeline_oracle.mjs';

const KILLS = Number(process.env.FLOE_FEED_KILLS ?? 4);
let db;
let work;
before(async () => {
  serveLocalFilesToFetch();
  if (FLOE) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-feed-source-'));
});
after(() => {
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// Silver: small batches (many commits) and compaction commits (maintenance, no changes).
const SILVER = '[trigger]\nmax_files_per_batch = 2\n[maintenance]\ncompact_every = 3\nmin_input_files = 2\n' +
  'retain_last = 1000\nmax_snapshot_age = "3650d"\n';

// A gold pipeline over silver's tables in the same catalog, into namespace `namespace`.
// `source`: more [source] keys.
function goldConfig(dir, exportDir, { namespace = 'gold', name = namespace, source = '', extra = '' } = {}) {
  const tables = exportTables(exportDir).map((t) => `"cda.${t.toLowerCase()}"`).join(', ');
  const config = path.join(dir, `${name}.toml`);
  fs.writeFileSync(config, `name = "${name}"
[source]
discovery = "table_changes"
tables = [${tables}]
${source}
[catalog]
type = "sql"
uri = "sqlite://${path.join(dir, 'catalog.db')}"
warehouse = "${path.join(dir, 'warehouse')}"
[target]
namespace = "${namespace}"
[state]
dir = "${path.join(dir, `${name}-state`)}"
${extra}
`);
  return config;
}

const keepFiltered = (row) => BigInt(row.id) % 3n !== 0n;

test('gold follows silver through rounds of updates and deletes, with and without a filter', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'rounds-'));
  const exportDir = path.join(dir, 'export');
  const flags = ['--seed', '21', '--rows', '250', '--tables', '2'];
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--folders', '4', '--files-per-folder', '3']);
  const silver = writePipelineConfig(dir, exportDir, { name: 'silver', extra: SILVER });
  const gold = goldConfig(dir, exportDir);
  const filtered = goldConfig(dir, exportDir, {
    namespace: 'filtered', source: 'commits_per_unit = 2', extra: '[transform]\nfilter = "id % 3 <> 0"\n',
  });
  for (let round = 0; round <= 1; ++round) {
    if (round > 0) {
      runFloeOk(['demo', 'generate', exportDir, ...flags, '--append-round', String(round), '--append-folders', '2']);
    }
    runFloeOk(['run', silver, '--once']);
    assert.deepEqual(await checkAgainstOracle(db, dir, exportDir), [], `silver after round ${round}`);
    runFloeOk(['run', gold, '--once']);
    assert.deepEqual(await checkAgainstOracle(db, dir, exportDir, { namespace: 'gold' }), [], `gold after round ${round}`);
    runFloeOk(['run', filtered, '--once']);
    assert.deepEqual(await checkAgainstOracle(db, dir, exportDir, { namespace: 'filtered', keep: keepFiltered }), [],
      `filtered gold after round ${round}`);
  }
  // Nothing new: a run commits nothing.
  const goldTables = exportTables(exportDir).map((name) => `gold.${name.toLowerCase()}`);
  const before = goldTables.map((table) => snapshotIds(dir, table).length);
  runFloeOk(['run', gold, '--once']);
  assert.deepEqual(goldTables.map((table) => snapshotIds(dir, table).length), before);
});

test(`kill -9 of the gold run at random moments (${KILLS} times): gold equals silver, no key twice`, async (t) => {
  if (skipWithoutFloe(t)) return;
  const random = makeRng(Number(process.env.FLOE_FEED_SEED ?? 20261205)).next;
  const dir = fs.mkdtempSync(path.join(work, 'kills-'));
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '22', '--rows', '400', '--tables', '1', '--folders', '6',
    '--files-per-folder', '3']);
  runFloeOk(['run', writePipelineConfig(dir, exportDir, { name: 'silver', extra: SILVER }), '--once']);
  // One source commit per unit and per batch: many gold commits for the kills to land between and in.
  const settings = { source: 'commits_per_unit = 1', extra: '[trigger]\nmax_files_per_batch = 1\n' };
  const probe = goldConfig(dir, exportDir, { namespace: 'probe', ...settings });
  const started = Date.now();
  runFloeOk(['run', probe, '--once', '--quiet']);
  const fullRunMs = Math.max(200, Date.now() - started);
  const gold = goldConfig(dir, exportDir, settings);
  let killed = 0;
  const outcomes = [];
  for (let i = 0; i < KILLS; ++i) {
    const delay = Math.floor(10 + random() * fullRunMs);
    const outcome = await runAndKill(gold, delay);
    if (outcome.signal === 'SIGKILL') ++killed;
    else if (outcome.code !== 0) assert.fail(`run ${i} (kill after ${delay} ms) failed with ${outcome.code}:\n${outcome.stderr}`);
    outcomes.push(`${delay}ms:${outcome.signal ?? outcome.code}`);
  }
  t.diagnostic(`full run ${fullRunMs} ms; ${killed}/${KILLS} killed: ${outcomes.join(' ')}`);
  const final = runFloe(['run', gold, '--once']);
  assert.equal(final.status, 0, `the final run failed:\n${final.stderr}\n${final.stdout}`);
  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir, { namespace: 'gold' }), []);
  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir, { namespace: 'probe' }), []);
});

test('a source history expired past the position stops that table, naming it and the snapshot', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'expired-'));
  const exportDir = path.join(dir, 'export');
  const flags = ['--seed', '23', '--rows', '200', '--tables', '1'];
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--folders', '2', '--files-per-folder', '2']);
  const silver = writePipelineConfig(dir, exportDir, { name: 'silver', extra: '[trigger]\nmax_files_per_batch = 1\n' });
  runFloeOk(['run', silver, '--once']);
  const gold = goldConfig(dir, exportDir);
  runFloeOk(['run', gold, '--once']);
  // Silver moves on and expires every snapshot but the newest: gold's position is gone.
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--append-round', '1', '--append-folders', '2']);
  runFloeOk(['run', silver, '--once']);
  const [table] = exportTables(exportDir).map((name) => name.toLowerCase());
  runFloeOk(['table', 'expire', `cda.${table}`, ...catalogArgs(dir), '--retain-last', '1', '--older-than', '1ms']);
  const stopped = runFloe(['run', gold, '--once']);
  const output = stopped.stdout + stopped.stderr;
  assert.match(output, new RegExp(`source table cda\\.${table}: snapshot \\d+, the parent of its oldest snapshot \\d+`));
  assert.match(output, /was expired before floe read its changes/);
  const status = runFloeOk(['status', gold]);
  assert.match(status.stdout, /stopped/);
});
