// [target] change_feed = true, end to end: every ingest commit's changes land
// in the append-only table <table>__changes, which independent readers read
// as a plain Iceberg v2 table: icebird through its metadata, DuckDB and
// parquet-wasm straight over its data files (no deletes to apply). After
// every round of random CDA batches (inserts, updates, deletes, late
// changes), the feed from the table's beginning must turn the empty table
// into the current table (tests/tools/change_feed_oracle.mjs), every source
// commit that changed rows must be in the feed exactly once, and a feed
// turned on late (or behind after a missed commit) catches up from the
// table's history.
//
// Env: FLOE_BIN (required).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDuckDB, readWithParquetWasm, sqlString } from '../tools/readers.mjs';
import { checkFeedAgainstSnapshots, icebirdRows, tableVersions } from '../tools/change_feed_oracle.mjs';
import {
  currentMetadataLocation,
  liveDataFiles,
  exportTables,
  FLOE,
  runFloeOk,
  serveLocalFilesToFetch,
  skipWithoutFloe,
  writePipelineConfig,
} from '../tools/pipeline_oracle.mjs';

let db;
let work;
before(async () => {
  serveLocalFilesToFetch();
  if (FLOE) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-feed-table-'));
});
after(() => {
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const MAINTENANCE = '[trigger]\nmax_files_per_batch = 4\n[maintenance]\ncompact_every = 3\nmin_input_files = 2\n' +
  'retain_last = 1000\nmax_snapshot_age = "3650d"\n';

function configFor(dir, exportDir, changeFeed, target = '') {
  return writePipelineConfig(dir, exportDir, { target: `change_feed = ${changeFeed}\n${target}`, extra: MAINTENANCE });
}

// Checks every table's feed table against the table; returns problems.
async function checkFeedTables(dir, exportDir) {
  const problems = [];
  for (const table of exportTables(exportDir)) {
    const name = table.toLowerCase();
    const identifier = `cda.${name}`;
    const feedLocation = currentMetadataLocation(dir, `${identifier}__changes`);
    const feed = await icebirdRows(feedLocation);
    const current = await icebirdRows(currentMetadataLocation(dir, identifier));
    const versions = tableVersions(path.join(dir, 'warehouse', 'cda', name));
    const sequences = new Map([...versions].map(([id, v]) => [id, v.sequence]));
    const columns = Object.keys(current[0] ?? feed[0] ?? {}).filter((c) => !c.startsWith('_change') && !c.startsWith('_commit'));
    problems.push(...await checkFeedAgainstSnapshots(db, {
      before: [], after: current, feed, columns, key: 'id', sequences, label: `${identifier}__changes`,
    }));

    // Exactly once: each source commit that changed rows is one feed snapshot.
    const feedVersions = tableVersions(path.join(dir, 'warehouse', 'cda', `${name}__changes`));
    // (A maintenance snapshot of the feed carries its parent's position forward: it records nothing.)
    const recorded = [...feedVersions.values()].filter((v) => v.operation !== 'replace')
      .map((v) => v.summary['floe.source-snapshot-id']);
    if (new Set(recorded).size !== recorded.length) problems.push(`${identifier}: a source commit recorded twice`);
    const changing = [...versions].filter(([, v]) => v.operation !== 'replace').map(([id]) => id);
    const inFeed = new Set(feed.map((r) => String(r._commit_snapshot_id)));
    for (const id of changing) {
      if (!recorded.includes(id) && inFeed.has(id)) problems.push(`${identifier}: rows of ${id} without its snapshot`);
    }
    for (const id of recorded) {
      if (!inFeed.has(id)) problems.push(`${identifier}: feed snapshot for ${id} holds none of its rows`);
      if (versions.get(id)?.operation === 'replace') problems.push(`${identifier}: maintenance commit ${id} in the feed`);
    }
    for (const id of changing) {
      if (!recorded.includes(id)) problems.push(`${identifier}: commit ${id} (${versions.get(id).operation}) missing from the feed`);
    }

    // DuckDB and parquet-wasm over the feed's live data files (the pipeline's
    // maintenance compacts the feed: files it replaced stay on disk until
    // expiry) hold the same rows icebird read.
    const files = await liveDataFiles(dir, `${identifier}__changes`);
    const list = `[${files.map(sqlString).join(', ')}]`;
    const [{ n }] = await db.all(`SELECT count(*) AS n FROM read_parquet(${list})`);
    if (Number(n) !== feed.length) problems.push(`${identifier}__changes: DuckDB reads ${n} rows, icebird ${feed.length}`);
    const types = await db.all(`SELECT _change_type AS t, count(*) AS n FROM read_parquet(${list}) GROUP BY 1`);
    const icebirdTypes = new Map();
    for (const row of feed) icebirdTypes.set(row._change_type, (icebirdTypes.get(row._change_type) ?? 0) + 1);
    for (const { t, n: count } of types) {
      if (icebirdTypes.get(t) !== Number(count)) problems.push(`${identifier}__changes: ${t}: DuckDB ${count}, icebird ${icebirdTypes.get(t)}`);
    }
    const wasmRows = files.reduce((sum, f) => sum + (readWithParquetWasm(f).cells[0]?.length ?? 0), 0);
    if (wasmRows !== feed.length) problems.push(`${identifier}__changes: parquet-wasm reads ${wasmRows} rows, icebird ${feed.length}`);
  }
  return problems;
}

test('<table>__changes turns the empty table into the current one after every round', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'rounds-'));
  const exportDir = path.join(dir, 'export');
  const flags = ['--seed', '12', '--rows', '500', '--tables', '2'];
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--folders', '4', '--files-per-folder', '3']);
  const config = configFor(dir, exportDir, true);
  runFloeOk(['run', config, '--once']);
  assert.deepEqual(await checkFeedTables(dir, exportDir), []);
  for (let round = 1; round <= 2; ++round) {
    runFloeOk(['demo', 'generate', exportDir, ...flags, '--append-round', String(round), '--append-folders', '2']);
    runFloeOk(['run', config, '--once']);
    assert.deepEqual(await checkFeedTables(dir, exportDir), [], `after round ${round}`);
  }
  // The feed takes a commit per commit of its table: the pipeline's maintenance compacts it too,
  // and its compactions keep the feed's source position.
  for (const table of exportTables(exportDir)) {
    const versions = [...tableVersions(path.join(dir, 'warehouse', 'cda', `${table}__changes`)).values()];
    assert.ok(versions.some((v) => v.operation === 'replace' && v.summary['floe.source-snapshot-id']),
      `${table}__changes was never compacted (or its compaction lost its source position)`);
  }
});

test('a feed turned on late, or left behind, catches up from the history', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'late-'));
  const exportDir = path.join(dir, 'export');
  const flags = ['--seed', '13', '--rows', '400', '--tables', '1'];
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--folders', '3', '--files-per-folder', '3']);
  // Round 0 without the feed: no feed table yet.
  runFloeOk(['run', configFor(dir, exportDir, false), '--once']);
  assert.ok(!fs.existsSync(path.join(dir, 'warehouse', 'cda', 'cc_claim__changes')));
  // Round 1 with it: the first batch appends the whole history first.
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--append-round', '1', '--append-folders', '2']);
  const on = runFloeOk(['run', configFor(dir, exportDir, true), '--once']);
  assert.doesNotMatch(on.stderr, /change feed .* is behind/);
  assert.deepEqual(await checkFeedTables(dir, exportDir), []);
  // Round 2 without, round 3 with: the gap is filled.
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--append-round', '2', '--append-folders', '1']);
  runFloeOk(['run', configFor(dir, exportDir, false), '--once']);
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--append-round', '3', '--append-folders', '1']);
  runFloeOk(['run', configFor(dir, exportDir, true), '--once']);
  assert.deepEqual(await checkFeedTables(dir, exportDir), []);
});
