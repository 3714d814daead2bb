// The pipeline with `[catalog] type = "rest"` pointing at `floe serve` (which
// keeps its own SQLite catalog) produces the same tables as the SQL catalog:
// every table equals the DuckDB oracle, read through the REST catalog with
// `floe table scan --catalog rest+http://...` and, from the metadata file
// the server reports, with icebird.
//
// Env: FLOE_BIN (required).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServe } from '../tools/floe_serve.mjs';
import { openDuckDB } from '../tools/readers.mjs';
import {
  FLOE,
  compareRows,
  committedFiles,
  exportTables,
  floeRows,
  icebirdVersions,
  oracleRows,
  runFloe,
  runFloeOk,
  serveLocalFilesToFetch,
} from '../tools/pipeline_oracle.mjs';

const TOKEN = 'pipeline-rest-test-token';
let db;
let work;
let server;
before(async () => {
  serveLocalFilesToFetch();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-pipeline-rest-'));
  if (FLOE) db = await openDuckDB();
});
after(() => {
  server?.stop();
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('pipeline into a REST catalog (floe serve) equals the oracle', async (t) => {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return;
  }
  server = await startServe(work, ['--token', TOKEN]);
  const { port } = server;
  const catalogUri = `rest+http://127.0.0.1:${port}`;
  const exportDir = path.join(work, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '31', '--rows', '800', '--tables', '2']);
  const config = path.join(work, 'pipeline.toml');
  fs.writeFileSync(config, `name = "rest"
[source]
format = "cda"
uri = "${exportDir}"
[catalog]
type = "rest"
uri = "${catalogUri}"
token = "${TOKEN}"
[target]
namespace = "cda"
[state]
dir = "${path.join(work, 'state')}"
[trigger]
max_files_per_batch = 10
`);
  const run = runFloe(['run', config, '--once']);
  assert.equal(run.status, 0, `floe run into the REST catalog failed:\n${run.stderr}\n${run.stdout}`);

  const env = { FLOE_CATALOG_TOKEN: TOKEN };
  const problems = [];
  for (const table of exportTables(exportDir)) {
    const { rows: expected, types } = await oracleRows(db, committedFiles(exportDir, table));
    const timestampColumns = new Set([...types].filter(([, type]) => /^TIMESTAMP/.test(type)).map(([c]) => c));
    const identifier = `cda.${table.toLowerCase()}`;
    const actual = floeRows(work, identifier, timestampColumns, { catalog: ['--catalog', catalogUri], env });
    if (actual.duplicates.length) problems.push(`${identifier}: duplicate ids ${actual.duplicates.slice(0, 5)}`);
    problems.push(...compareRows(expected, actual.rows, { label: `${identifier} (REST)` }));

    const described = runFloeOk(['table', 'describe', identifier, '--catalog', catalogUri], { env }).stdout;
    const metadata = /^metadata: (.+)$/m.exec(described)?.[1]?.trim().replace(/^file:\/\//, '');
    assert.ok(metadata, `no metadata location in:\n${described}`);
    const read = await icebirdVersions(metadata);
    const want = new Map([...expected].map(([id, row]) => [id, { gwcbi___seqval_hex: row.gwcbi___seqval_hex }]));
    const got = new Map([...read.versions].map(([id, seq]) => [id, { gwcbi___seqval_hex: seq }]));
    problems.push(...compareRows(want, got, { label: `${identifier} (icebird via REST metadata)` }));
  }
  assert.deepEqual(problems, []);
});
