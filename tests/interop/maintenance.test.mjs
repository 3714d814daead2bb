// Interop: `floe table compact` on copies of the Iceberg tables Spark, Java
// and Athena wrote (shared/fixtures/iceberg/icebird), addressed by their
// metadata file with --location-map, then read by icebird, an independent
// reader: the rows must be the same as before, and the tables with deletes
// must have been rewritten (their delete files gone). Copies live in a temp
// dir laid out like the bucket (hyperparam-iceberg/<engine>/<table>), and
// icebird's requests for https://hyperparam-iceberg.s3.amazonaws.com/... are
// answered from that copy.
//
// Env: FLOE_BIN (required), FLOE_SOURCE_DIR, FLOE_SHARED_DIR (optional).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { icebergRead } from 'icebird';

const SOURCE = process.env.FLOE_SOURCE_DIR ?? path.resolve(import.meta.dirname, '..', '..');
const SHARED = process.env.FLOE_SHARED_DIR ?? path.join(SOURCE, '..', 'shared');
const FIXTURES = path.join(SHARED, 'fixtures', 'iceberg', 'icebird');
const FLOE = process.env.FLOE_BIN;
const BUCKET = 'hyperparam-iceberg';

// Rows, data files compaction rewrites and delete files it removes (--min-input-files 2).
// spark/bunnies: one data file and a position delete file left dangling by Spark's overwrite
// (it names the replaced file), so only the delete file goes. java/bunnies: two small files
// with a position and an equality delete file, packed into one with both applied.
const TABLES = {
  'spark/bunnies': { rows: 20, rewritten: 0, deletesRemoved: 1 },
  'java/bunnies': { rows: 15, rewritten: 2, deletesRemoved: 2 },
  'spark/rename_column': { rows: 4, rewritten: 0, deletesRemoved: 0 },
  'athena/example': { rows: 2, rewritten: 0, deletesRemoved: 0 },
};

let bucketRoot;  // <tmp>/hyperparam-iceberg
const realFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const text = String(url);
  const prefix = `https://${BUCKET}.s3.amazonaws.com/`;
  let file;
  if (bucketRoot && text.startsWith(prefix)) file = path.join(bucketRoot, decodeURIComponent(text.slice(prefix.length)));
  else if (text.startsWith('/') || text.startsWith('file://')) file = text.replace(/^file:\/\//, '');
  if (file === undefined) return realFetch(url, init);
  if (!fs.existsSync(file)) return new Response('not found', { status: 404 });
  return new Response(fs.readFileSync(file));
};

function latestMetadata(tableDir) {
  const dir = path.join(tableDir, 'metadata');
  const hint = path.join(dir, 'version-hint.text');
  if (fs.existsSync(hint)) return path.join(dir, `v${fs.readFileSync(hint, 'utf8').trim()}.metadata.json`);
  return path.join(dir, fs.readdirSync(dir).filter((n) => n.endsWith('.metadata.json')).sort().at(-1));
}

const canonical = (row) =>
  JSON.stringify(row, (_, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Date ? v.toISOString() : v));

// Column names Java's Parquet writer keeps as they are (others it stores Avro-sanitized, e.g.
// "Breed Name" as "Breed_x20Name", and icebird looks them up that way).
const plainName = (name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);

async function icebirdRows(tableDir, metadataFile, onlyPlainNames = false) {
  const rows = await icebergRead({ tableUrl: tableDir, metadataFileName: path.basename(metadataFile) });
  // A column added after a file was written is absent from icebird's row for that file, and null
  // in a file written after: both mean null.
  const project = (row) => Object.fromEntries(Object.entries(row)
    .filter(([k, v]) => v !== null && v !== undefined && (!onlyPlainNames || plainName(k)))
    .sort(([a], [b]) => (a < b ? -1 : 1)));
  return rows.map((row) => canonical(project(row))).sort();
}

function floe(args) {
  return execFileSync(FLOE, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

test('floe compacts tables other engines wrote; icebird reads the same rows', async (t) => {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return;
  }
  if (!fs.existsSync(FIXTURES)) {
    t.skip(`skipped: Iceberg fixtures not found at ${FIXTURES} (set FLOE_SHARED_DIR)`);
    return;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-maintenance-'));
  bucketRoot = path.join(tmp, BUCKET);
  try {
    for (const [name, expected] of Object.entries(TABLES)) {
      await t.test(name, async (t) => {
        const tableDir = path.join(bucketRoot, name);
        fs.cpSync(path.join(FIXTURES, name), tableDir, { recursive: true });
        const metadataFile = latestMetadata(tableDir);
        const location = JSON.parse(fs.readFileSync(metadataFile, 'utf8')).location;
        const before = await icebirdRows(tableDir, metadataFile);
        assert.equal(before.length, expected.rows, `${name}: rows before compaction`);

        const report = floe(['table', 'compact', '--metadata', metadataFile, '--location-map',
          `${location}=${tableDir}`, '--min-input-files', '2']);
        const count = (label) => Number(report.match(new RegExp(`^${label}: (\\d+)$`, 'm'))?.[1]);
        const newMetadata = report.match(/^metadata: (.*)$/m)?.[1];
        assert.ok(newMetadata, `${name}: compact printed the metadata location\n${report}`);
        assert.equal(count('data files rewritten'), expected.rewritten, `${name}: data files rewritten\n${report}`);
        assert.equal(count('delete files removed'), expected.deletesRemoved, `${name}: delete files removed\n${report}`);
        if (expected.rewritten === 0 && expected.deletesRemoved === 0) {
          assert.equal(newMetadata, metadataFile, `${name}: nothing to do, nothing committed`);
          return;
        }
        assert.notEqual(newMetadata, metadataFile, `${name}: a new metadata version was committed`);
        assert.ok(fs.existsSync(newMetadata), `${name}: ${newMetadata} exists`);
        const hint = path.join(tableDir, 'metadata', 'version-hint.text');
        if (fs.existsSync(hint)) {
          assert.equal(latestMetadata(tableDir), newMetadata, `${name}: version-hint.text names the new version`);
        }
        assert.deepEqual(await icebirdRows(tableDir, newMetadata, true), await icebirdRows(tableDir, metadataFile, true),
          `${name}: icebird reads the same rows after compaction (columns with plain names)`);
        // floe's Parquet writer stores column names as the schema spells them, not Avro-sanitized like
        // Java's, so icebird (which looks columns up by sanitized name) misses "Breed Name" & co. in the
        // rewritten file. Reported to the writer's owner; tracked here until the writer sanitizes.
        await t.test(`${name}: every column`, { todo: 'data_file_writer writes unsanitized Parquet column names' },
          async () => {
            assert.deepEqual(await icebirdRows(tableDir, newMetadata), before);
          });
        // floe's own reader agrees on the row count.
        const scanned = floe(['table', 'scan', '--metadata', newMetadata, '--location-map', `${location}=${tableDir}`])
          .split('\n').filter((l) => l.length > 0);
        assert.equal(scanned.length, expected.rows, `${name}: floe table scan after compaction`);
        // The new metadata names no delete file any more.
        const meta = JSON.parse(fs.readFileSync(newMetadata, 'utf8').replace(/("(?:snapshot-id|parent-snapshot-id|current-snapshot-id)"\s*:\s*)(-?\d+)/g, '$1"$2"'));
        const current = meta.snapshots.find((s) => s['snapshot-id'] === meta['current-snapshot-id']);
        assert.equal(current.summary.operation, 'replace');
        assert.equal(current.summary['floe.maintenance'], 'compaction');
        assert.equal(current.summary['total-delete-files'], '0', `${name}: no delete files left`);
      });
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
