// End-to-end: `floe run --once` ingests generated CDA exports, and every
// table equals what DuckDB computes directly over the source files (latest
// change per id by padded seqval, deletes removed, committed folders only),
// read back through `floe table scan` and through icebird. Also: a re-run
// with nothing new commits nothing; a new folder commits only its changes;
// corrupt files are quarantined with reasons while good files land.
//
// Env: FLOE_BIN (required).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDuckDB } from '../tools/readers.mjs';
import {
  catalogArgs,
  checkAgainstOracle,
  committedFiles,
  exportTables,
  FLOE,
  ledgerFiles,
  runFloe,
  runFloeOk,
  serveLocalFilesToFetch,
  skipWithoutFloe,
  snapshotIds,
  writePipelineConfig,
} from '../tools/pipeline_oracle.mjs';

let db;
let work;
before(async () => {
  serveLocalFilesToFetch();
  if (FLOE) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-pipeline-'));
});
after(() => {
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// Shapes: [label, demo generate flags, pipeline config additions].
const SHAPES = [
  ['seed 1, defaults', ['--seed', '1', '--rows', '1500'], {}],
  // Maintenance (compaction, manifest rewrite, expiry) runs between the ingest commits here.
  ['seed 2, many small batches with maintenance between them',
    ['--seed', '2', '--rows', '800', '--folders', '16', '--files-per-folder', '4'],
    { extra: '[trigger]\nmax_files_per_batch = 3\n[maintenance]\ncompact_every = 4\nmin_input_files = 3\n' }],
  ['seed 3, one table, no schema change', ['--seed', '3', '--rows', '2000', '--tables', '1', '--no-schema-change'], {}],
  ['seed 4, format v3 deletion vectors', ['--seed', '4', '--rows', '1000', '--tables', '2'],
    { target: 'format_version = 3' }],
  // No packing and no rewrite for deleted rows: files with 3 or more position
  // delete files have them merged into one per partition instead; the base
  // files stay, and icebird must read the merged deletes as the oracle says.
  ['seed 5, position delete files merged between batches',
    ['--seed', '5', '--rows', '1500', '--tables', '2', '--folders', '10', '--files-per-folder', '1'],
    { extra: '[trigger]\nmax_files_per_batch = 1\n[maintenance]\ncompact_every = 4\nmin_input_files = 100000\n' +
      'delete_ratio_threshold = 1.0\nmax_delete_files = 3\n', merges: true }],
];

for (const [label, flags, additions] of SHAPES) {
  test(`oracle: ${label}`, async (t) => {
    if (skipWithoutFloe(t)) return;
    const dir = fs.mkdtempSync(path.join(work, 'shape-'));
    const exportDir = path.join(dir, 'export');
    runFloeOk(['demo', 'generate', exportDir, ...flags]);
    const config = writePipelineConfig(dir, exportDir, additions);
    const run = runFloe(['run', config, '--once']);
    assert.equal(run.status, 0, `floe run failed:\n${run.stderr}\n${run.stdout}`);
    if (additions.extra?.includes('[maintenance]')) {
      assert.match(run.stderr, /maintenance cda\.\w+: compaction/, 'maintenance did not run between batches');
      assert.doesNotMatch(run.stderr, /maintenance .*failed/);
    }
    if (additions.merges) {
      assert.match(run.stderr, /position delete files merged into 1/, 'no position delete files were merged');
    }
    // icebird cannot read v3 deletion vectors (test-tools-notes.md): floe scan only there.
    const problems = await checkAgainstOracle(db, dir, exportDir, { icebird: additions.target === undefined });
    assert.deepEqual(problems, []);
    // Every committed-folder file is committed in the ledger; no uncommitted-folder file is.
    const ledger = ledgerFiles(config);
    const expected = new Set(exportTables(exportDir).flatMap((table) => committedFiles(exportDir, table)));
    const committed = new Set(ledger.filter((f) => f.state === 'committed').map((f) => f.uri));
    assert.deepEqual([...committed].filter((uri) => !expected.has(uri)), [], 'files committed that should not be');
    assert.deepEqual([...expected].filter((uri) => !committed.has(uri)), [], 'files not committed');
  });
}

test('re-running with nothing new commits nothing; a new folder commits only its changes', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'incremental-'));
  const exportDir = path.join(dir, 'export');
  const flags = ['--seed', '7', '--rows', '600', '--tables', '2'];
  runFloeOk(['demo', 'generate', exportDir, ...flags]);
  const config = writePipelineConfig(dir, exportDir);
  runFloeOk(['run', config, '--once']);
  const tables = exportTables(exportDir).map((table) => `cda.${table.toLowerCase()}`);
  const before = Object.fromEntries(tables.map((id) => [id, snapshotIds(dir, id)]));

  runFloeOk(['run', config, '--once']);
  for (const id of tables) assert.deepEqual(snapshotIds(dir, id), before[id], `${id}: a no-op run committed`);

  const committedBefore = new Set(ledgerFiles(config).filter((f) => f.state === 'committed').map((f) => f.uri));
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--append-round', '1', '--append-folders', '2']);
  runFloeOk(['run', config, '--once']);
  const ledger = ledgerFiles(config);
  const newlyCommitted = ledger.filter((f) => f.state === 'committed' && !committedBefore.has(f.uri));
  assert.ok(newlyCommitted.length > 0, 'the new folders committed nothing');
  for (const f of newlyCommitted) {
    assert.ok(!committedBefore.has(f.uri));
    // Old files keep their original batch: nothing was re-ingested.
  }
  const oldBatches = new Set(ledger.filter((f) => committedBefore.has(f.uri)).map((f) => f.batch));
  for (const f of newlyCommitted) assert.ok(!oldBatches.has(f.batch), `new file ${f.uri} went into an old batch`);
  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir), []);
});

test('corrupt files are quarantined with reasons; the good files land', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'quarantine-'));
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '11', '--rows', '700', '--tables', '1']);
  const [table] = exportTables(exportDir);
  const files = committedFiles(exportDir, table);
  // A truncated part file, and garbage bytes with a .parquet name.
  const truncated = files[Math.floor(files.length / 2)];
  const bytes = fs.readFileSync(truncated);
  fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
  const garbage = path.join(path.dirname(files[0]), 'part-99999-garbage-c000.snappy.parquet');
  fs.writeFileSync(garbage, 'this is not parquet at all');

  const config = writePipelineConfig(dir, exportDir);
  const run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 1, `a run with quarantined files must exit 1:\n${run.stderr}\n${run.stdout}`);
  assert.match(run.stdout + run.stderr, /quarantin/i);

  const ledger = ledgerFiles(config);
  const byUri = new Map(ledger.map((f) => [f.uri, f]));
  for (const bad of [truncated, garbage]) {
    const entry = byUri.get(bad);
    assert.ok(entry, `${bad} is not in the ledger`);
    assert.equal(entry.state, 'quarantined', `${bad}: ${JSON.stringify(entry)}`);
    assert.ok(entry.reason && entry.reason.length > 10, `${bad}: no reason given`);
  }
  // The oracle over the good files only.
  fs.rmSync(truncated);
  fs.rmSync(garbage);
  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir), []);
});

test('2,000 small files in many small batches: maintenance leaves one file, no deletes, the same rows', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'compaction-'));
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '13', '--rows', '3000', '--tables', '1', '--folders', '100',
    '--files-per-folder', '20', '--no-uncommitted-folder']);
  const [table] = exportTables(exportDir);
  assert.ok(committedFiles(exportDir, table).length >= 1900, 'the export should hold about 2,000 part files');
  // Maintenance off during ingest, so the table piles up small files and delete files first.
  const config = writePipelineConfig(dir, exportDir, {
    extra: '[trigger]\nmax_files_per_batch = 20\n[maintenance]\nenabled = false\n',
  });
  runFloeOk(['run', config, '--once', '--quiet']);
  const identifier = `cda.${table.toLowerCase()}`;
  const files = () => runFloeOk(['table', 'files', identifier, ...catalogArgs(dir)]).stdout
    .split('\n').slice(1).filter((line) => line.trim() !== '').map((line) => line.split('\t')[1]);
  const before = files();
  assert.ok(before.filter((c) => c === 'data').length > 50, `expected many data files, got ${before.length}`);
  assert.ok(before.some((c) => c !== 'data'), 'expected delete files before maintenance');

  runFloeOk(['maintain', config]);
  const after = files();
  assert.deepEqual(after, ['data'], `after maintenance: ${after.join(', ')}`);
  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir), []);
});
