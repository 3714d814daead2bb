// Interop: tables floe writes with real Parquet data files (appends, a row
// delta with position deletes, an added column, identity/bucket/truncate/day
// partitions; several snapshots each) read by icebird, an independent Iceberg
// reader, from their current metadata.json. The rows must equal what the
// writer tool (tests/tools/write_icebird_tables.cc) recorded in
// <table>.expected.json: same count, every value equal, rows sorted by id.
//
// Env: FLOE_BIN (required), FLOE_TOOLS_DIR (the built test tools; default
// tests/tools beside FLOE_BIN's folder).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { icebergRead } from 'icebird';

const FLOE = process.env.FLOE_BIN;
const TOOLS = process.env.FLOE_TOOLS_DIR || (FLOE && path.join(path.dirname(FLOE), 'tests', 'tools'));
const DRIVER = TOOLS && path.join(TOOLS, 'write_icebird_tables');
const TABLES = ['appends', 'deletes', 'evolved', 'partitioned'];

// icebird fetches every file by URL; serve local absolute paths from disk
// (status 200 with the whole file: hyparquet then slices it in memory).
const realFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const text = String(url);
  if (text.startsWith('/') || text.startsWith('file://')) {
    const file = text.replace(/^file:\/\//, '');
    if (!fs.existsSync(file)) return new Response('not found', { status: 404 });
    return new Response(fs.readFileSync(file));
  }
  return realFetch(url, init);
};

// icebird's value -> the writer tool's cell convention (see its header).
function render(column, value) {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return String(BigInt(value.getTime()) * 1000n);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return column === 'amount' ? value.toFixed(2) : String(value);
  if (typeof value === 'string') return value;
  return `<unexpected ${typeof value}: ${String(value)}>`;
}

test('icebird reads the tables floe writes', async (t) => {
  if (!FLOE || !fs.existsSync(DRIVER)) {
    t.skip(`skipped: FLOE_BIN or the writer tool ${DRIVER} is missing (build the tests)`);
    return;
  }
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-icebird-'));
  try {
    execFileSync(DRIVER, [out], { stdio: 'pipe' });
    for (const table of TABLES) {
      await t.test(`ns.${table}`, async () => {
        const expected = JSON.parse(fs.readFileSync(path.join(out, `${table}.expected.json`), 'utf8'));
        const metadataLocation = fs.readFileSync(path.join(out, `${table}.metadata_location`), 'utf8').trim();
        const rows = await icebergRead({
          tableUrl: path.dirname(path.dirname(metadataLocation)),
          metadataFileName: path.basename(metadataLocation),
        });
        const got = rows
          .map((row) => expected.columns.map((c) => render(c, row[c])))
          .sort((a, b) => Number(BigInt(a[0]) - BigInt(b[0])));
        assert.equal(got.length, expected.rows.length, `ns.${table}: row count`);
        for (let r = 0; r < got.length; r++) {
          assert.deepEqual(Object.keys(rows[r]).sort(), [...expected.columns].sort(), `ns.${table} row ${r}: columns`);
          for (let c = 0; c < expected.columns.length; c++) {
            assert.equal(got[r][c], expected.rows[r][c],
              `ns.${table} row ${r} (id ${expected.rows[r][0]}) column ${expected.columns[c]}`);
          }
        }
      });
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
