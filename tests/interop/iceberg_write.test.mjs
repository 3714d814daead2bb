// Tables floe commits (filesystem catalog: append, row delta with position
// deletes, schema and partition evolution) read back by an independent
// Iceberg reader (icebird's metadata/manifest-list/manifest decoding) and by
// `floe table list|describe|history|files`. Data files are manifest entries
// only here: reading rows back is covered where real data files are written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { icebergManifests } from 'icebird';
import { splitManifestEntries } from 'icebird/src/manifest.js';

const FLOE = process.env.FLOE_BIN;
const TOOLS = process.env.FLOE_TOOLS_DIR || (FLOE && path.join(path.dirname(FLOE), 'tests', 'tools'));
const DRIVER = TOOLS && path.join(TOOLS, 'write_fixture_tables');

// icebird fetches every file; serve local absolute paths from disk.
const realFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const text = String(url);
  if (text.startsWith('/') || text.startsWith('file://')) {
    return new Response(fs.readFileSync(text.replace(/^file:\/\//, '')));
  }
  return realFetch(url, init);
};

function writeWarehouse() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-iceberg-write-'));
  const warehouse = path.join(dir, 'wh');
  execFileSync(DRIVER, [warehouse], { stdio: 'pipe' });
  return { dir, warehouse };
}

function floe(...args) {
  return execFileSync(FLOE, args, { encoding: 'utf8' });
}

test('icebird decodes the metadata, manifest lists and manifests floe commits', async (t) => {
  if (!FLOE || !fs.existsSync(DRIVER)) {
    t.skip(`skipped: FLOE_BIN or the fixture driver ${DRIVER} is missing (build the tests)`);
    return;
  }
  const { dir, warehouse } = writeWarehouse();
  try {
    const metadataDir = path.join(warehouse, 'db', 'events', 'metadata');
    const version = fs.readFileSync(path.join(metadataDir, 'version-hint.text'), 'utf8').trim();
    assert.equal(version, '5');
    const metadata = JSON.parse(fs.readFileSync(path.join(metadataDir, `v${version}.metadata.json`), 'utf8'));
    assert.equal(metadata['format-version'], 2);
    assert.equal(metadata['last-sequence-number'], 2);
    assert.equal(metadata.snapshots.length, 2);
    assert.equal(metadata['current-schema-id'], 1);
    assert.equal(metadata['default-spec-id'], 1);
    assert.equal(metadata['last-partition-id'], 1001);
    assert.equal(metadata['metadata-log'].length, 4);

    const manifests = await icebergManifests(metadata);
    const { dataEntries, deleteEntries } = splitManifestEntries(manifests);
    const data = dataEntries.map((e) => [e.data_file.file_path.split('/data/')[1], Number(e.data_file.record_count),
      e.data_file.partition.category, Number(e.sequence_number)]).sort();
    assert.deepEqual(data, [['category=a/1.parquet', 10, 'a', 1], ['category=b/2.parquet', 5, 'b', 1]]);
    assert.equal(deleteEntries.length, 1);
    const del = deleteEntries[0];
    assert.equal(del.data_file.content, 1);
    assert.equal(Number(del.data_file.record_count), 2);
    assert.equal(Number(del.sequence_number), 2);
    assert.ok(del.data_file.referenced_data_file.endsWith('category=a/1.parquet'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('floe table list/describe/history/files show the committed state', (t) => {
  if (!FLOE || !fs.existsSync(DRIVER)) {
    t.skip(`skipped: FLOE_BIN or the fixture driver ${DRIVER} is missing (build the tests)`);
    return;
  }
  const { dir, warehouse } = writeWarehouse();
  try {
    const catalog = ['--catalog', `file://${warehouse}`];
    assert.equal(floe('table', 'list', ...catalog), 'namespace db\n');
    assert.equal(floe('table', 'list', ...catalog, 'db'), 'table db.events\n');
    const describe = floe('table', 'describe', ...catalog, 'db.events');
    assert.match(describe, /format-version: 2/);
    assert.match(describe, /^ {2}5: note string optional$/m);
    assert.match(describe, /^ {2}1001: ts_day = day\(ts\)$/m);
    assert.match(describe, /owner = floe/);
    const history = floe('table', 'history', ...catalog, 'db.events').trim().split('\n');
    assert.equal(history.length, 3);
    assert.match(history[1], /\tappend\t.*added-records=15.*floe\.batch-id=1/);
    assert.match(history[2], /^\d+\*\t\d+\t2\t.*\tdelete\t.*added-position-deletes=2/);
    const files = floe('table', 'files', ...catalog, 'db.events').trim().split('\n').slice(1)
      .map((line) => line.split('\t')).map(([p, content, records, , partition]) =>
        [p.split('/data/')[1], content, records, partition]).sort();
    assert.deepEqual(files, [
      ['category=a/1-del.parquet', 'position-deletes', '2', 'category=a'],
      ['category=a/1.parquet', 'data', '10', 'category=a'],
      ['category=b/2.parquet', 'data', '5', 'category=b'],
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
