// The change feed, end to end: random sequences of CDA batches (`floe demo
// generate` exports with inserts, updates, deletes and out-of-order late
// changes, appended in rounds, maintenance compacting between commits) are
// ingested by `floe run --once`; for random pairs of snapshots (A, B) the
// feed `floe table changes --from-snapshot A --to-snapshot B --format
// parquet` (read with hyparquet) must equal the difference of the two
// snapshots' rows as icebird reads them, computed by DuckDB
// (tests/tools/change_feed_oracle.mjs). Also: the same feed as JSON lines and
// CSV, and clear refusals (a snapshot that is no ancestor, a missing table).
//
// Env: FLOE_BIN (required).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { makeRng } from '../tools/random_parquet.mjs';
import { openDuckDB } from '../tools/readers.mjs';
import {
  CHANGE_COLUMNS,
  checkFeedAgainstSnapshots,
  hyparquetRows,
  icebirdRows,
  tableVersions,
} from '../tools/change_feed_oracle.mjs';
import {
  catalogArgs,
  exportTables,
  FLOE,
  parseCsv,
  runFloe,
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
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-changes-'));
});
after(() => {
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// Ingests `rounds` rounds of a generated export, one `floe run --once` each.
function ingestRounds(dir, seed, { rounds = 3, rows = 500, tables = 2, extra = '', target = '' } = {}) {
  const exportDir = path.join(dir, 'export');
  const flags = ['--seed', String(seed), '--rows', String(rows), '--tables', String(tables)];
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--folders', '4', '--files-per-folder', '3']);
  const config = writePipelineConfig(dir, exportDir, {
    target,
    extra: `[trigger]\nmax_files_per_batch = 4\n[maintenance]\ncompact_every = 3\nmin_input_files = 2\nretain_last = 1000\nmax_snapshot_age = "3650d"\n${extra}`,
  });
  runFloeOk(['run', config, '--once']);
  for (let round = 1; round < rounds; ++round) {
    runFloeOk(['demo', 'generate', exportDir, ...flags, '--append-round', String(round), '--append-folders', '2']);
    runFloeOk(['run', config, '--once']);
  }
  return { exportDir, config };
}

// The snapshots of a table along its history, oldest first.
function history(dir, identifier) {
  const [ns, name] = identifier.split('.');
  const versions = tableVersions(path.join(dir, 'warehouse', ns, name));
  const ordered = [...versions.entries()].sort((a, b) => a[1].sequence - b[1].sequence);
  return { versions, ids: ordered.map(([id]) => id) };
}

async function checkRange(dir, identifier, versions, from, to, label) {
  const out = path.join(dir, `feed-${from}-${to}.parquet`);
  runFloeOk(['table', 'changes', identifier, ...catalogArgs(dir), '--from-snapshot', from, '--to-snapshot', to,
    '--format', 'parquet', '--output', out]);
  const { rows: feed, columns: feedColumns } = await hyparquetRows(out);
  const columns = feedColumns.filter((c) => !CHANGE_COLUMNS.includes(c));
  assert.deepEqual(feedColumns.slice(-4), CHANGE_COLUMNS);
  const beforeRows = await icebirdRows(versions.get(from).metadata);
  const afterRows = await icebirdRows(versions.get(to).metadata);
  const sequences = new Map([...versions].map(([id, v]) => [id, v.sequence]));
  return {
    feed,
    problems: await checkFeedAgainstSnapshots(db, {
      before: beforeRows, after: afterRows, feed, columns, key: 'id', sequences, label,
    }),
  };
}

for (const seed of [3, 8]) {
  test(`floe table changes equals the difference of two snapshots (seed ${seed})`, async (t) => {
    if (skipWithoutFloe(t)) return;
    const dir = fs.mkdtempSync(path.join(work, `seed${seed}-`));
    const { exportDir } = ingestRounds(dir, seed);
    const rng = makeRng(seed);
    let ranges = 0;
    let sawMaintenance = false;
    const totals = { insert: 0, delete: 0, update_preimage: 0, update_postimage: 0 };
    for (const table of exportTables(exportDir)) {
      const identifier = `cda.${table.toLowerCase()}`;
      const { versions, ids } = history(dir, identifier);
      if (ids.length < 3) continue;
      sawMaintenance ||= [...versions.values()].some((v) => v.summary['floe.maintenance'] !== undefined);
      // The whole history after the first commit, adjacent commits, and random pairs.
      const pairs = [[ids[0], ids[ids.length - 1]], [ids[ids.length - 2], ids[ids.length - 1]]];
      for (let i = 0; i < 3; ++i) {
        const a = rng.int(ids.length - 1);
        const b = a + 1 + rng.int(ids.length - 1 - a);
        pairs.push([ids[a], ids[b]]);
      }
      for (const [from, to] of pairs) {
        const { feed, problems } = await checkRange(dir, identifier, versions, from, to, `${identifier} (${from}, ${to}]`);
        assert.deepEqual(problems, []);
        for (const row of feed) totals[row._change_type] += 1;
        ++ranges;
      }
    }
    assert.ok(ranges >= 5, `only ${ranges} ranges checked`);
    assert.ok(sawMaintenance, 'no maintenance commit happened between the ingest commits');
    for (const [type, n] of Object.entries(totals)) assert.ok(n > 0, `no ${type} rows in any feed`);
  });
}

test('the feed as JSON lines and CSV holds the same changes as the Parquet feed', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'formats-'));
  ingestRounds(dir, 5, { rounds: 2, tables: 1, rows: 300 });
  const identifier = 'cda.cc_claim';
  const { ids } = history(dir, identifier);
  const args = ['table', 'changes', identifier, ...catalogArgs(dir), '--from-snapshot', ids[0]];
  const out = path.join(dir, 'feed.parquet');
  runFloeOk([...args, '--format', 'parquet', '--output', out]);
  const { rows: parquetRows } = await hyparquetRows(out);
  const jsonl = runFloeOk([...args]).stdout.trim().split('\n').map((line) => JSON.parse(line));
  const [header, ...records] = parseCsv(runFloeOk([...args, '--format', 'csv']).stdout);
  assert.ok(parquetRows.length > 0);
  assert.equal(jsonl.length, parquetRows.length);
  assert.equal(records.length, parquetRows.length);
  assert.deepEqual(header.slice(-4), CHANGE_COLUMNS);
  const typeColumn = header.indexOf('_change_type');
  const idColumn = header.indexOf('id');
  for (let i = 0; i < parquetRows.length; ++i) {
    assert.equal(jsonl[i]._change_type, parquetRows[i]._change_type);
    assert.equal(String(jsonl[i].id), String(parquetRows[i].id));
    assert.equal(records[i][typeColumn], parquetRows[i]._change_type);
    assert.equal(records[i][idColumn], String(parquetRows[i].id));
  }
  // --output for text formats writes the file instead of standard output.
  const file = path.join(dir, 'feed.jsonl');
  const quiet = runFloeOk([...args, '--output', file]);
  assert.equal(quiet.stdout, '');
  assert.equal(fs.readFileSync(file, 'utf8').trim().split('\n').length, jsonl.length);
});

test('ranges that do not follow the history and unknown tables are refused clearly', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'refusals-'));
  ingestRounds(dir, 6, { rounds: 1, tables: 1, rows: 200 });
  const identifier = 'cda.cc_claim';
  const { ids } = history(dir, identifier);
  const backwards = runFloe(['table', 'changes', identifier, ...catalogArgs(dir), '--from-snapshot',
    ids[ids.length - 1], '--to-snapshot', ids[0]]);
  assert.equal(backwards.status, 1);
  assert.match(backwards.stderr, /is not an ancestor of snapshot/);
  const missing = runFloe(['table', 'changes', 'cda.nope', ...catalogArgs(dir), '--from-snapshot', ids[0]]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /nope/);
  const parquetToStdout = runFloe(['table', 'changes', identifier, ...catalogArgs(dir), '--from-snapshot', ids[0],
    '--format', 'parquet']);
  assert.equal(parquetToStdout.status, 1);
  assert.match(parquetToStdout.stderr, /--output/);
});
