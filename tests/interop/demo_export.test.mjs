// `floe demo generate` output read by DuckDB, an independent Parquet reader:
// every part file of every table (both fingerprints, union_by_name) must
// read, the row count must equal what floe printed, and decimals,
// timestamps, strings and the gwcbi___ change columns must hold sane values.
// An append round must add exactly the rows it reports.
//
// Env: FLOE_BIN (the floe binary, required); FLOE_KEEP_TEMP=1 keeps the
// work directory.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';

import { openDuckDB, sqlString } from '../tools/readers.mjs';

const run = promisify(execFile);
const FLOE_BIN = process.env.FLOE_BIN;

let db;
let workDir;

before(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-demo-export-'));
  db = await openDuckDB();
});

after(() => {
  db?.close();
  if (process.env.FLOE_KEEP_TEMP !== '1') fs.rmSync(workDir, { recursive: true, force: true });
});

// Numbers out of floe's one-line summary ("... rows 1234, bytes ...").
function summaryNumber(line, name) {
  const match = line.match(new RegExp(`\\b${name} (\\d+)`));
  assert.ok(match, `no "${name} N" in: ${line}`);
  return Number(match[1]);
}

async function countRows(root) {
  const glob = sqlString(path.join(root, '**', '*.parquet'));
  const [row] = await db.all(`SELECT count(*) AS n FROM read_parquet(${glob}, union_by_name = true)`);
  return Number(row.n);
}

test('DuckDB reads every generated part file with the printed row count and sane values', async () => {
  assert.ok(FLOE_BIN, 'FLOE_BIN must name the floe binary');
  const root = path.join(workDir, 'export');
  const { stdout } = await run(FLOE_BIN, [
    'demo', 'generate', root, '--seed', '7', '--rows', '400', '--tables', '5', '--folders', '6',
    '--files-per-folder', '2',
  ]);
  const printedRows = summaryNumber(stdout, 'rows');
  const printedFiles = summaryNumber(stdout, 'files');
  assert.ok(printedRows > 0);

  const partFiles = fs.readdirSync(root, { recursive: true }).filter((f) => f.endsWith('.snappy.parquet'));
  assert.equal(partFiles.length, printedFiles);
  assert.equal(await countRows(root), printedRows);

  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'manifest.json'), 'utf8'));
  assert.deepEqual(Object.keys(manifest).sort(),
    ['cc_check', 'cc_claim', 'cc_contact', 'cc_exposure', 'cctl_lossType']);

  const claims = sqlString(path.join(root, 'cc_claim', '**', '*.parquet'));
  const [claim] = await db.all(`
    SELECT count(*) AS n,
           min(createtime) AS min_create, max(updatetime) AS max_update,
           count(*) FILTER (WHERE updatetime < createtime) AS update_before_create,
           min(totalincurred) AS min_incurred, max(totalincurred) AS max_incurred,
           max(deductible) AS max_deductible,
           count(*) FILTER (WHERE totalincurred IS NULL) AS null_incurred,
           count(*) FILTER (WHERE regexp_matches(description, '[^\\x00-\\x7F]')) AS non_ascii,
           min(length(notes)) AS min_notes, max(strlen(notes)) AS max_notes_bytes,
           count(*) FILTER (WHERE hex(gwcbi___seqval) <> gwcbi___seqval_hex) AS bad_hex,
           count(DISTINCT length(gwcbi___seqval_hex)) AS hex_lengths,
           count(*) FILTER (WHERE gwcbi___operation NOT IN (0, 1, 2, 3, 4)) AS bad_operation,
           count(DISTINCT gwcbi___operation) AS operations,
           count(*) FILTER (WHERE id IS NULL OR publicid <> 'cc:' || id) AS bad_publicid,
           min(lossdate) AS min_loss, max(lossdate) AS max_loss,
           count(*) FILTER (WHERE segment IS NOT NULL) AS with_segment
    FROM read_parquet(${claims}, union_by_name = true)`);
  assert.ok(Number(claim.n) > 0);
  // Timestamps: microseconds around the default start, 2025-12-01 UTC.
  assert.ok(claim.min_create >= new Date('2025-11-30T00:00:00Z'), String(claim.min_create));
  assert.ok(claim.max_update <= new Date('2025-12-02T00:00:00Z'), String(claim.max_update));
  assert.equal(Number(claim.update_before_create), 0);
  // Decimals: cents within the generator's ranges, not raw unscaled integers.
  assert.ok(Number(claim.min_incurred) >= -500 && Number(claim.max_incurred) <= 2_500_000,
    `${claim.min_incurred}..${claim.max_incurred}`);
  assert.ok(Number(claim.max_deductible) <= 5000 && Number(claim.max_deductible) > 0);
  const nullShare = Number(claim.null_incurred) / Number(claim.n);
  assert.ok(nullShare > 0.03 && nullShare < 0.2, `null share ${nullShare}`);
  assert.ok(Number(claim.non_ascii) > 0, 'descriptions carry accents/CJK/emoji');
  assert.ok(Number(claim.min_notes) >= 150 && Number(claim.max_notes_bytes) <= 2200,
    `${claim.min_notes}..${claim.max_notes_bytes}`);
  assert.equal(Number(claim.bad_hex), 0, 'seqval_hex is the unpadded hex of seqval');
  assert.ok(Number(claim.hex_lengths) >= 2, 'seqval_hex text grows a digit');
  assert.equal(Number(claim.bad_operation), 0);
  assert.equal(Number(claim.operations), 5);
  assert.equal(Number(claim.bad_publicid), 0);
  assert.ok(claim.min_loss >= new Date('2020-01-01T00:00:00Z') && claim.max_loss <= new Date('2026-01-02T00:00:00Z'));
  assert.ok(Number(claim.with_segment) > 0, 'second-fingerprint files add columns');

  // The schema change: beanversion is INT32 in the first fingerprint's files, INT64 in the second's.
  const beanTypes = await db.all(`
    SELECT DISTINCT type FROM parquet_schema(${claims}) WHERE name = 'beanversion' ORDER BY type`);
  assert.deepEqual(beanTypes.map((r) => r.type), ['INT32', 'INT64']);

  // The typelist has its own shape and unique typecodes per id.
  const lossTypes = sqlString(path.join(root, 'cctl_lossType', '**', '*.parquet'));
  const [typelist] = await db.all(`
    SELECT count(DISTINCT id) AS ids, count(DISTINCT typecode) AS codes
    FROM read_parquet(${lossTypes}, union_by_name = true)`);
  assert.equal(Number(typelist.ids), Number(typelist.codes));
  assert.ok(Number(typelist.ids) <= 40);

  // An append round adds exactly the rows it reports.
  const appended = await run(FLOE_BIN, ['demo', 'generate', root, '--append-round', '1', '--append-folders', '2']);
  assert.match(appended.stdout, /^appended round 1 to /);
  assert.equal(await countRows(root), printedRows + summaryNumber(appended.stdout, 'rows'));
});

test('floe demo generate refuses an existing export and bad options with a message', async () => {
  assert.ok(FLOE_BIN, 'FLOE_BIN must name the floe binary');
  const root = path.join(workDir, 'twice');
  await run(FLOE_BIN, ['demo', 'generate', root, '--rows', '50', '--tables', '1', '--folders', '3']);
  await assert.rejects(run(FLOE_BIN, ['demo', 'generate', root]), (error) => {
    assert.match(error.stderr, /already exists/);
    return true;
  });
  await assert.rejects(run(FLOE_BIN, ['demo', 'generate', path.join(workDir, 'bad'), '--tables', '51']),
    (error) => {
      assert.match(error.stderr, /tables must be between 1 and 50, got 51/);
      return true;
    });
});
