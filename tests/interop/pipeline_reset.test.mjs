// A CDA reset (the export of a table rewritten: manifest.json's
// lastSuccessfulWriteTimestamp going backwards) stops that table with an
// error that names the way out, the other tables go on, and
// `floe files CONFIG --reload-table T` lets the next run load the table's
// current export again: its changes merge on top of the rows already in the
// table (all stale here), so the table keeps exactly the rows it had, and the
// ledger holds exactly the currently committed files.
//
// Env: FLOE_BIN (the floe binary, required); FLOE_KEEP_TEMP=1 keeps the
// work directory.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

import {
  FLOE, committedFiles, floeRows, ledgerFiles, runFloe, runFloeOk, writePipelineConfig,
} from '../tools/pipeline_oracle.mjs';

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-reset-'));
after(() => {
  if (process.env.FLOE_KEEP_TEMP !== '1') fs.rmSync(workDir, { recursive: true, force: true });
});

function committedLedgerUris(config, table) {
  return ledgerFiles(config)
    .filter((f) => f.table === table && f.state === 'committed')
    .map((f) => f.uri)
    .sort();
}

test('a reset table stops with a way out; --reload-table loads its export again without changing its rows', () => {
  assert.ok(FLOE, 'FLOE_BIN must name the floe binary');
  const exportDir = path.join(workDir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '5', '--rows', '300', '--tables', '2', '--folders', '5',
    '--files-per-folder', '1', '--no-uncommitted-folder']);
  const config = writePipelineConfig(workDir, exportDir, { name: 'reset' });
  runFloeOk(['run', config, '--once', '--quiet']);

  const manifestPath = path.join(exportDir, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const [resetTable, otherTable] = Object.keys(manifest).sort();
  const identifier = `cda.${resetTable.toLowerCase()}`;
  const before = floeRows(workDir, identifier, new Set());
  assert.ok(before.rows.size > 0);

  // The re-export is not complete yet: the manifest points at an older folder.
  const folders = [...new Set(committedFiles(exportDir, resetTable).map((f) => path.basename(path.dirname(f))))].sort();
  assert.ok(folders.length >= 3, `want several folders, got ${folders}`);
  manifest[resetTable].lastSuccessfulWriteTimestamp = Number(folders[1]);
  fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));

  const stopped = runFloe(['run', config, '--once']);
  assert.equal(stopped.status, 1, stopped.stdout + stopped.stderr);
  const output = stopped.stdout + stopped.stderr;
  assert.match(output, new RegExp(`CDA table ${resetTable} was reset: lastSuccessfulWriteTimestamp went from`));
  assert.match(output, new RegExp(`floe files CONFIG --reload-table ${resetTable}`));
  // Stopped means stopped: nothing of it is forgotten or reloaded by this run.
  assert.equal(committedLedgerUris(config, resetTable).length, folders.length);

  // The other table is not held up by it.
  assert.ok(committedLedgerUris(config, otherTable).length > 0);

  const wrongName = runFloe(['files', config, '--reload-table', 'no_such_table']);
  assert.equal(wrongName.status, 1);
  assert.match(wrongName.stderr, /has no records of source table 'no_such_table'/);
  const mixed = runFloe(['files', config, '--reload-table', resetTable, '--retry']);
  assert.equal(mixed.status, 1);
  assert.match(mixed.stderr, /separate actions/);

  const reload = runFloeOk(['files', config, '--reload-table', resetTable]);
  assert.match(reload.stdout, new RegExp(`forgot ${folders.length} files of source table ${resetTable}; the next`));
  assert.deepEqual(committedLedgerUris(config, resetTable), []);

  const reloaded = runFloeOk(['run', config, '--once']);
  assert.doesNotMatch(reloaded.stdout + reloaded.stderr, /was reset/);
  const nowCommitted = committedFiles(exportDir, resetTable);
  assert.equal(nowCommitted.length, 2);
  assert.deepEqual(committedLedgerUris(config, resetTable).map((u) => path.basename(path.dirname(u))).sort(),
    folders.slice(0, 2));
  const after = floeRows(workDir, identifier, new Set());
  assert.deepEqual(after.duplicates, []);
  assert.deepEqual([...after.rows.entries()].sort(), [...before.rows.entries()].sort());

  // Later runs are quiet again: the table's new watermark is the re-export's.
  const again = runFloeOk(['run', config, '--once']);
  assert.doesNotMatch(again.stdout + again.stderr, /was reset/);
});
