// v3 tables as other engines read them (issue 25 items 19-20): after
// `floe maintain` compacts a format-version 3 table (deletion vectors
// applied, small files packed), every live row keeps its _row_id and
// _last_updated_sequence_number (spec "Row Lineage"), and the DELETED entries
// of the compaction snapshot carry their first_row_id. Checked with readers
// floe did not write: avsc reads the manifest lists and manifests (first_row_id
// inheritance computed here from the spec), DuckDB reads the data files'
// rows, positions and lineage columns. Also the snapshot summaries match
// Java's: total-files-size counts each deletion vector's content size (not
// its whole Puffin file), and a snapshot that removes deletion vectors says
// removed-dvs.
//
// Env: FLOE_BIN (the floe binary, required); FLOE_KEEP_TEMP=1 keeps the
// work directory.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

import { readAvroRecords as readAvro } from '../tools/avro_exact.mjs';
import { FLOE, catalogArgs, currentMetadataLocation, parseCsv, runFloeOk, writePipelineConfig }
  from '../tools/pipeline_oracle.mjs';
import { openDuckDB, sqlString } from '../tools/readers.mjs';

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-v3-lineage-'));
after(() => {
  if (process.env.FLOE_KEEP_TEMP !== '1') fs.rmSync(workDir, { recursive: true, force: true });
});

// A metadata.json with exact integers: ids and sequence numbers past 2^53 stay BigInt.
function readMetadata(file) {
  const text = fs.readFileSync(file, 'utf8').replace(/(":\s*)(-?\d{16,})/g, '$1"$2"');
  return JSON.parse(text);
}

// Every entry of a snapshot: { status, content, path, records, size, contentSize, firstRowId,
// explicitFirstRowId, sequence }, with first_row_id and sequence numbers inherited per the spec.
async function snapshotEntries(snapshot) {
  const out = [];
  for (const manifest of await readAvro(snapshot['manifest-list'])) {
    let next = manifest.first_row_id ?? null;
    for (const entry of await readAvro(manifest.manifest_path)) {
      const file = entry.data_file;
      const explicit = file.first_row_id ?? null;
      let firstRowId = explicit;
      if (manifest.content === 0 && file.content === 0 && explicit === null && next !== null) {
        firstRowId = next;
        next += file.record_count;
      }
      out.push({
        status: entry.status,
        content: file.content,
        path: file.file_path,
        records: file.record_count,
        size: file.file_size_in_bytes,
        contentSize: file.content_size_in_bytes ?? null,
        referenced: file.referenced_data_file ?? null,
        firstRowId,
        explicitFirstRowId: explicit,
        sequence: entry.sequence_number ?? manifest.sequence_number,
        manifestContent: manifest.content,
      });
    }
  }
  return out;
}

// id -> { rowId, seq } of the rows DuckDB reads from `files` (live data entries), the newest version
// of each id (greatest padded seqval) winning, as the table's merge does.
async function lineageById(db, files) {
  const best = new Map();
  for (const f of files) {
    const columns = new Set((await db.all(`SELECT name FROM parquet_schema(${sqlString(f.path)})`))
      .map((r) => r.name));
    const rowId = columns.has('_row_id') ? '_row_id' : 'NULL';
    const seq = columns.has('_last_updated_sequence_number') ? '_last_updated_sequence_number' : 'NULL';
    const rows = await db.all(`SELECT CAST(id AS VARCHAR) AS id, lpad(lower(gwcbi___seqval_hex), 32, '0') AS v,
      CAST(${rowId} AS VARCHAR) AS row_id, CAST(${seq} AS VARCHAR) AS seq, CAST(file_row_number AS VARCHAR) AS pos
      FROM read_parquet(${sqlString(f.path)}, file_row_number = true)`);
    for (const r of rows) {
      const inheritedId = f.firstRowId === null ? null : f.firstRowId + BigInt(r.pos);
      const value = {
        version: r.v,
        rowId: r.row_id === null ? inheritedId : BigInt(r.row_id),
        seq: r.seq === null ? BigInt(f.sequence) : BigInt(r.seq),
        file: f.path,
        explicit: r.row_id !== null,
      };
      const seen = best.get(r.id);
      if (!seen || value.version > seen.version) best.set(r.id, value);
    }
  }
  return best;
}

test('a v3 table compacted by floe maintain keeps every row\'s lineage; summaries match Java', async (t) => {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return;
  }
  const exportDir = path.join(workDir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '11', '--rows', '400', '--tables', '1', '--folders', '6',
    '--files-per-folder', '2', '--no-uncommitted-folder', '--no-schema-change']);
  const config = writePipelineConfig(workDir, exportDir, {
    name: 'lineage',
    target: 'format_version = 3',
    extra: '[trigger]\nmax_files_per_batch = 2\n[maintenance]\nenabled = false\nmin_input_files = 2\n',
  });
  runFloeOk(['run', config, '--once', '--quiet']);
  const table = 'cda.cc_claim';
  const [header, ...records] = parseCsv(runFloeOk(['table', 'scan', table, ...catalogArgs(workDir), '--format',
    'csv']).stdout);
  const idColumn = header.indexOf('id');
  const live = new Set(records.map((r) => r[idColumn]));
  const db = await openDuckDB();
  try {
    const beforeMeta = readMetadata(currentMetadataLocation(workDir, table));
    assert.equal(beforeMeta['format-version'], 3);
    const beforeSnapshot = beforeMeta.snapshots.find((s) => s['snapshot-id'] === beforeMeta['current-snapshot-id']);
    const beforeEntries = await snapshotEntries(beforeSnapshot);
    const beforeData = beforeEntries.filter((e) => e.content === 0 && e.status !== 2);
    const dvs = beforeEntries.filter((e) => e.content === 1 && e.status !== 2);
    assert.ok(dvs.length > 0, 'the ingest wrote deletion vectors');
    for (const f of beforeData) assert.notEqual(f.firstRowId, null, `${f.path} has a first_row_id`);
    const expected = await lineageById(db, beforeData);

    // Java's total-files-size: data files plus each deletion vector's content size.
    const liveSize = beforeEntries.filter((e) => e.status !== 2)
      .reduce((sum, e) => sum + (e.contentSize !== null && e.content === 1 ? e.contentSize : e.size), 0n);
    assert.equal(BigInt(beforeSnapshot.summary['total-files-size']), liveSize,
      `total-files-size of snapshot ${beforeSnapshot['snapshot-id']}`);

    const report = runFloeOk(['maintain', config]).stdout;
    const afterMeta = readMetadata(currentMetadataLocation(workDir, table));
    const compaction = afterMeta.snapshots.find((s) => s.summary['floe.maintenance'] === 'compaction');
    assert.ok(compaction, `floe maintain compacted the table:\n${report}`);
    const compactionEntries = await snapshotEntries(compaction);
    const deleted = compactionEntries.filter((e) => e.status === 2 && e.content === 0);
    assert.ok(deleted.length > 0, 'the compaction removed data files');
    for (const e of deleted) {
      assert.notEqual(e.explicitFirstRowId, null, `DELETED entry ${e.path} is written with its first_row_id`);
      const before = beforeData.find((f) => f.path === e.path);
      if (before) assert.equal(e.explicitFirstRowId, before.firstRowId, `${e.path} keeps its first_row_id`);
    }
    const removedDvs = compactionEntries.filter((e) => e.status === 2 && e.content === 1).length;
    if (removedDvs > 0) assert.equal(compaction.summary['removed-dvs'], String(removedDvs));

    const current = afterMeta.snapshots.find((s) => s['snapshot-id'] === afterMeta['current-snapshot-id']);
    const afterEntries = await snapshotEntries(current);
    const afterData = afterEntries.filter((e) => e.content === 0 && e.status !== 2);
    const actual = await lineageById(db, afterData);
    let checked = 0;
    let rewritten = 0;
    for (const id of live) {
      const want = expected.get(id);
      const got = actual.get(id);
      assert.ok(want && got, `row ${id} is in the table before and after`);
      assert.equal(got.rowId, want.rowId, `row ${id}: _row_id ${got.rowId} after compaction, ${want.rowId} before`);
      assert.equal(got.seq, want.seq, `row ${id}: _last_updated_sequence_number`);
      if (got.file !== want.file) rewritten += 1;
      checked += 1;
    }
    assert.ok(rewritten > 0, 'some rows moved to new files');
    t.diagnostic(`${checked} live rows checked, ${rewritten} moved by compaction, ${deleted.length} files removed`);
    const afterSize = afterEntries.filter((e) => e.status !== 2)
      .reduce((sum, e) => sum + (e.contentSize !== null && e.content === 1 ? e.contentSize : e.size), 0n);
    assert.equal(BigInt(current.summary['total-files-size']), afterSize, 'total-files-size after maintenance');
  } finally {
    db.close();
  }
});
