// Snapshot histories other writers leave: a metadata file whose snapshots'
// parents form a cycle, name themselves, or whose current snapshot (or
// refs.main) names no snapshot makes every command that reads the table
// (`floe table scan|history|compact|expire`, `floe run --once` with its
// maintenance, `floe maintain`) fail within a second with an error naming
// the metadata file; before, compaction's and the commit's history walks
// spun forever. A history whose oldest kept snapshot names an expired parent
// (as Java's and floe's expiry leave it) keeps working with every command.
//
// The tampering is done in Python: snapshot ids exceed 2^53 and JSON.parse
// would round them.
//
// Env: FLOE_BIN (the floe binary, required); FLOE_KEEP_TEMP=1 keeps the
// work directory.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

import { FLOE, catalogArgs, currentMetadataLocation, runFloe, runFloeOk, writePipelineConfig }
  from '../tools/pipeline_oracle.mjs';

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-foreign-history-'));
after(() => {
  if (process.env.FLOE_KEEP_TEMP !== '1') fs.rmSync(workDir, { recursive: true, force: true });
});

// A CDA table with four ingest snapshots (one folder per batch).
function ingestedTable(name) {
  const dir = path.join(workDir, name);
  fs.mkdirSync(dir);
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '7', '--rows', '200', '--tables', '1', '--folders', '4',
    '--files-per-folder', '1', '--no-uncommitted-folder', '--no-empty-folder', '--no-schema-change']);
  const config = writePipelineConfig(dir, exportDir, {
    name: 'history',
    extra: '[trigger]\nmax_files_per_batch = 1\n[maintenance]\ncompact_every = 1\n',
  });
  runFloeOk(['run', config, '--once', '--quiet']);
  return { dir, exportDir, config, table: 'cda.cc_claim' };
}

// Writes the table's next metadata file changed by `python` (a body working on `m`, the parsed
// metadata) and points the SQLite catalog at it; returns the new file's path.
function tamper(t, python) {
  const current = currentMetadataLocation(t.dir, t.table);
  const next = path.join(path.dirname(current), '99999-tampered.metadata.json');
  const script = `
import json, sqlite3, sys
current, next_file, db = sys.argv[1:4]
m = json.load(open(current))
snaps = sorted(m['snapshots'], key=lambda s: s['sequence-number'])
${python}
json.dump(m, open(next_file, 'w'), indent=2)
c = sqlite3.connect(db)
c.execute('UPDATE iceberg_tables SET metadata_location = ? WHERE metadata_location = ?', (next_file, current))
assert c.total_changes == 1
c.commit()
`;
  const result = spawnSync('python3', ['-c', script, current, next, path.join(t.dir, 'catalog.db')],
    { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return next;
}

function appendFolders(t) {
  runFloeOk(['demo', 'generate', t.exportDir, '--append-round', '1', '--append-folders', '1']);
}

// Every command that reads the table, as [label, args].
function commands(t) {
  return [
    ['table scan', ['table', 'scan', t.table, ...catalogArgs(t.dir), '--limit', '5']],
    ['table history', ['table', 'history', t.table, ...catalogArgs(t.dir)]],
    ['table compact', ['table', 'compact', t.table, ...catalogArgs(t.dir), '--min-input-files', '2']],
    ['table expire', ['table', 'expire', t.table, ...catalogArgs(t.dir), '--retain-last', '2',
      '--older-than', '0s']],
    ['run --once', ['run', t.config, '--once']],
    ['maintain', ['maintain', t.config]],
  ];
}

const broken = {
  'a parent cycle': { python: "snaps[0]['parent-snapshot-id'] = snaps[-1]['snapshot-id']", message: /cycle/ },
  'a self-parent': {
    python: "snaps[1]['parent-snapshot-id'] = snaps[1]['snapshot-id']",
    message: /names itself as its parent-snapshot-id/,
  },
  'a current snapshot that does not exist': {
    python: "m['current-snapshot-id'] = 12345\nm['refs']['main']['snapshot-id'] = 12345",
    message: /current-snapshot-id 12345 is not in 'snapshots'/,
  },
  'a ref that names no snapshot': {
    python: "m['refs']['audit'] = {'snapshot-id': 777, 'type': 'tag'}",
    message: /ref 'audit' points at unknown snapshot 777/,
  },
};

for (const [label, { python, message }] of Object.entries(broken)) {
  test(`metadata with ${label} fails every command within a second, naming the file`, (ctx) => {
    assert.ok(FLOE, 'FLOE_BIN must name the floe binary');
    const t = ingestedTable(label.replace(/\W+/g, '-'));
    const file = tamper(t, python);
    appendFolders(t);  // so `floe run` has a batch to commit onto the broken table
    for (const [what, args] of commands(t)) {
      const start = process.hrtime.bigint();
      const result = runFloe(args, { timeoutMs: 20_000 });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const output = result.stdout + result.stderr;
      assert.equal(result.signal, null, `${what}: killed after ${ms} ms (a history walk that never ends)`);
      assert.notEqual(result.status, 0, `${what} succeeded on ${label}:\n${output}`);
      assert.ok(output.includes(file), `${what}: the error names ${file}:\n${output}`);
      assert.match(output, message, `${what}: ${output}`);
      assert.ok(ms < 1000, `${what} took ${ms.toFixed(0)} ms to fail`);
      ctx.diagnostic(`${what}: failed in ${ms.toFixed(0)} ms`);
    }
  });
}

test('a history whose oldest kept snapshot names an expired parent keeps working', () => {
  assert.ok(FLOE, 'FLOE_BIN must name the floe binary');
  const t = ingestedTable('expired-parent');
  const rowsBefore = runFloeOk(['table', 'scan', t.table, ...catalogArgs(t.dir), '--format', 'csv']).stdout;
  const snapshotLines = (text) => text.trim().split('\n').filter((l) => /^\d/.test(l)).length;
  const kept = snapshotLines(runFloeOk(['table', 'history', t.table, ...catalogArgs(t.dir)]).stdout) - 1;
  // The root snapshot is gone (expired); the next one still names it as its parent.
  tamper(t, "m['snapshots'] = [s for s in m['snapshots'] if s['snapshot-id'] != snaps[0]['snapshot-id']]\n" +
    "assert snaps[1]['parent-snapshot-id'] == snaps[0]['snapshot-id']");
  const history = runFloeOk(['table', 'history', t.table, ...catalogArgs(t.dir)]).stdout;
  assert.equal(snapshotLines(history), kept, history);
  const rowsAfter = runFloeOk(['table', 'scan', t.table, ...catalogArgs(t.dir), '--format', 'csv']).stdout;
  assert.equal(rowsAfter, rowsBefore);
  appendFolders(t);
  for (const [what, args] of commands(t).slice(2)) {
    const result = runFloe(args, { timeoutMs: 60_000 });
    assert.equal(result.status, 0, `${what}: ${result.stdout}${result.stderr}`);
  }
  runFloeOk(['table', 'scan', t.table, ...catalogArgs(t.dir), '--limit', '1']);
});

// Issue 25 item 14: a table another writer emptied or rolled back must not
// take the next batches (it would end as a partial table): the run stops
// the table with a message naming what happened, and --reload-table loads
// it whole again.
const rewrites = {
  'emptied (no current snapshot, as CREATE OR REPLACE leaves it)': {
    python: "m['current-snapshot-id'] = -1\nm['refs'] = {}\nm['snapshot-log'] = []",
    message: /another writer emptied it \(it has no current snapshot\)/,
  },
  'rolled back to an older snapshot': {
    python: "m['current-snapshot-id'] = snaps[1]['snapshot-id']\n" +
      "m['refs']['main']['snapshot-id'] = snaps[1]['snapshot-id']",
    message: /another writer rolled it back to snapshot \d+/,
  },
};

for (const [label, { python, message }] of Object.entries(rewrites)) {
  test(`a table ${label} stops with a message, and --reload-table makes it whole`, () => {
    assert.ok(FLOE, 'FLOE_BIN must name the floe binary');
    const t = ingestedTable(`rewritten-${label.split(' ')[0]}`);
    tamper(t, python);
    appendFolders(t);
    const stopped = runFloe(['run', t.config, '--once']);
    assert.notEqual(stopped.status, 0, stopped.stdout + stopped.stderr);
    assert.match(stopped.stderr, /table cda\.cc_claim no longer holds this pipeline's last batch \(\d+, snapshot \d+\)/,
      stopped.stderr);
    assert.match(stopped.stderr, message, stopped.stderr);
    assert.match(stopped.stderr, /--reload-table/, stopped.stderr);
    // Stopped means stopped: another run says the same and changes nothing.
    const again = runFloe(['run', t.config, '--once']);
    assert.notEqual(again.status, 0);
    assert.match(again.stderr, message);

    runFloeOk(['files', t.config, '--reload-table', 'cc_claim']);
    runFloeOk(['run', t.config, '--once', '--quiet']);
    // The same export ingested from scratch elsewhere is the reference.
    const fresh = path.join(t.dir, 'fresh');
    fs.mkdirSync(fresh);
    runFloeOk(['run', writePipelineConfig(fresh, t.exportDir, { name: 'fresh' }), '--once', '--quiet']);
    const rows = (dir) => runFloeOk(['table', 'scan', t.table, ...catalogArgs(dir), '--format', 'csv'])
      .stdout.replace(/\r/g, '').trim().split('\n').sort().join('\n');
    assert.equal(rows(t.dir), rows(fresh));
  });
}
