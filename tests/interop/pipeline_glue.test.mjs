// The pipeline with `[catalog] type = "glue"` against moto's Glue Data
// Catalog: `floe run --once` creates and commits the tables; boto3's
// get_table (tests/tools/aws_driver.py) then sees what Athena would read —
// table_type ICEBERG, the current metadata_location (the file floe reports),
// previous_metadata_location after the next run, and the columns typed as
// Iceberg's GlueCatalog types them (this file's own implementation of that
// mapping, from the metadata file), also after the export's schema change.
// The rows read back through `--catalog glue://<account>?region=...` (moto
// found by AWS_ENDPOINT_URL_GLUE) equal the DuckDB oracle.
// Skipped, saying so, where moto_server is not installed.
//
// Env: FLOE_BIN (required).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { motoMissingReason, startMoto } from '../tools/moto.mjs';
import { openDuckDB } from '../tools/readers.mjs';
import {
  FLOE,
  committedFiles,
  compareRows,
  exportTables,
  floeRows,
  oracleRows,
  runFloe,
  runFloeOk,
} from '../tools/pipeline_oracle.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DRIVER = path.join(HERE, '..', 'tools', 'aws_driver.py');
const ACCOUNT = '123456789012';
const AWS_ENV = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'us-east-1' };

let db;
let work;
let moto;
before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-pipeline-glue-'));
  if (FLOE && !motoMissingReason()) {
    db = await openDuckDB();
    moto = await startMoto({ log: path.join(work, 'moto.log') });
  }
});
after(async () => {
  await moto?.stop?.();
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function driver(command) {
  const file = path.join(work, `command-${Date.now()}-${Math.random()}.json`);
  fs.writeFileSync(file, JSON.stringify(command));
  const run = spawnSync('python3', [DRIVER, moto.url, file], { encoding: 'utf8' });
  assert.equal(run.status, 0, `aws_driver.py ${command.command} failed:\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

// Iceberg type (metadata JSON) -> the Glue type string of Iceberg's GlueCatalog.
function glueType(type) {
  if (typeof type === 'string') {
    if (type === 'long') return 'bigint';
    if (['int', 'boolean', 'float', 'double', 'date', 'string'].includes(type)) return type;
    if (type === 'uuid' || type === 'time') return 'string';
    if (type === 'timestamp' || type === 'timestamptz') return 'timestamp';
    if (type === 'timestamp_ns' || type === 'timestamptz_ns') return 'timestamp_nano';
    if (type === 'binary' || type.startsWith('fixed')) return 'binary';
    const decimal = /^decimal\((\d+),\s*(\d+)\)$/.exec(type);
    if (decimal) return `decimal(${decimal[1]},${decimal[2]})`;
    return type;
  }
  if (type.type === 'struct') return `struct<${type.fields.map((f) => `${f.name}:${glueType(f.type)}`).join(',')}>`;
  if (type.type === 'list') return `array<${glueType(type.element)}>`;
  if (type.type === 'map') return `map<${glueType(type.key)},${glueType(type.value)}>`;
  throw new Error(`unknown type ${JSON.stringify(type)}`);
}

function expectedColumns(metadata) {
  const columns = [];
  const seen = new Set();
  const add = (field, current) => {
    if (seen.has(field.name)) return;
    seen.add(field.name);
    const column = {
      Name: field.name,
      Type: glueType(field.type),
      Parameters: {
        'iceberg.field.id': String(field.id),
        'iceberg.field.optional': String(!field.required),
        'iceberg.field.current': String(current),
      },
    };
    if (field.doc) column.Comment = field.doc;
    columns.push(column);
  };
  const current = metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id']);
  for (const field of current.fields) add(field, true);
  for (const schema of metadata.schemas) {
    if (schema['schema-id'] !== metadata['current-schema-id']) for (const field of schema.fields) add(field, false);
  }
  return columns;
}

function writeConfig(exportDir) {
  const config = path.join(work, 'pipeline.toml');
  fs.writeFileSync(config, `name = "glue"
[source]
format = "cda"
uri = "${exportDir}"
[catalog]
type = "glue"
catalog_id = "${ACCOUNT}"
region = "us-east-1"
endpoint = "${moto.url}"
warehouse = "${path.join(work, 'warehouse')}"
[target]
namespace = "cda"
[state]
dir = "${path.join(work, 'state')}"
[trigger]
max_files_per_batch = 4
`);
  return config;
}

test('pipeline into the Glue Data Catalog: tables Athena would read, equal to the oracle', async (t) => {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return;
  }
  const missing = motoMissingReason();
  if (missing) {
    t.skip(`skipped: ${missing}`);
    return;
  }
  // The pipeline names moto in [catalog] endpoint; the commands reach it by
  // the SDK convention AWS_ENDPOINT_URL_GLUE (a glue:// URI without endpoint).
  const catalogUri = `glue://${ACCOUNT}?region=us-east-1`;
  const glueEnv = { ...AWS_ENV, AWS_ENDPOINT_URL_GLUE: moto.url, AWS_CONFIG_FILE: '/dev/null' };
  const exportDir = path.join(work, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '47', '--rows', '600', '--tables', '2']);
  const config = writeConfig(exportDir);

  const checkTables = async (label, previous) => {
    const problems = [];
    const locations = new Map();
    for (const table of exportTables(exportDir)) {
      const identifier = `cda.${table.toLowerCase()}`;
      const described = runFloeOk(['table', 'describe', identifier, '--catalog', catalogUri], { env: glueEnv }).stdout;
      const metadataLocation = /^metadata: (.+)$/m.exec(described)?.[1]?.trim();
      assert.ok(metadataLocation, `no metadata location in:\n${described}`);
      locations.set(identifier, metadataLocation);
      const metadata = JSON.parse(fs.readFileSync(metadataLocation.replace(/^file:\/\//, ''), 'utf8'));
      const glue = driver({ command: 'glue-get-table', database: 'cda', table: table.toLowerCase() });
      assert.equal(glue.TableType, 'EXTERNAL_TABLE', `${label} ${identifier}`);
      assert.equal(glue.Parameters.table_type, 'ICEBERG', `${label} ${identifier}`);
      assert.equal(glue.Parameters.metadata_location, metadataLocation, `${label} ${identifier}`);
      if (previous) {
        assert.equal(glue.Parameters.previous_metadata_location, previous.get(identifier), `${label} ${identifier}`);
      }
      assert.equal(glue.StorageDescriptor.Location, metadata.location, `${label} ${identifier}`);
      assert.deepEqual(glue.StorageDescriptor.Columns, expectedColumns(metadata), `${label} ${identifier} columns`);

      const { rows: expected, types } = await oracleRows(db, committedFiles(exportDir, table));
      const timestampColumns = new Set([...types].filter(([, type]) => /^TIMESTAMP/.test(type)).map(([c]) => c));
      const actual = floeRows(work, identifier, timestampColumns, { catalog: ['--catalog', catalogUri], env: glueEnv });
      if (actual.duplicates.length) problems.push(`${identifier}: duplicate ids ${actual.duplicates.slice(0, 5)}`);
      problems.push(...compareRows(expected, actual.rows, { label: `${identifier} (${label})` }));
    }
    assert.deepEqual(problems, []);
    return locations;
  };

  const first = runFloe(['run', config, '--once'], { env: AWS_ENV });
  assert.equal(first.status, 0, `floe run into Glue failed:\n${first.stderr}\n${first.stdout}`);
  const afterFirst = await checkTables('first run');
  // The demo export changes its schema (added columns, int -> bigint): some table evolved.
  const evolved = [...afterFirst.values()].some((location) => {
    const metadata = JSON.parse(fs.readFileSync(location.replace(/^file:\/\//, ''), 'utf8'));
    return metadata.schemas.length > 1;
  });
  assert.ok(evolved, 'no table went through a schema evolution; the test would not check it');

  runFloeOk(['demo', 'generate', exportDir, '--append-round', '1', '--append-folders', '2']);
  const second = runFloe(['run', config, '--once'], { env: AWS_ENV });
  assert.equal(second.status, 0, `second floe run into Glue failed:\n${second.stderr}\n${second.stdout}`);
  const afterSecond = await checkTables('second run', null);
  for (const [identifier, location] of afterSecond) {
    const glue = driver({ command: 'glue-get-table', database: 'cda', table: identifier.split('.')[1] });
    assert.notEqual(location, afterFirst.get(identifier), `${identifier} has no new commit`);
    assert.ok(glue.Parameters.previous_metadata_location, `${identifier} has no previous_metadata_location`);
    const previous = JSON.parse(
      fs.readFileSync(glue.Parameters.previous_metadata_location.replace(/^file:\/\//, ''), 'utf8'),
    );
    const current = JSON.parse(fs.readFileSync(location.replace(/^file:\/\//, ''), 'utf8'));
    // The previous file is the one the current metadata's log ends with.
    const log = current['metadata-log'] ?? [];
    assert.equal(log.at(-1)?.['metadata-file'], glue.Parameters.previous_metadata_location, identifier);
    assert.ok(previous['last-updated-ms'] <= current['last-updated-ms'], identifier);
  }
  const listed = runFloeOk(['table', 'list', 'cda', '--catalog', catalogUri], { env: glueEnv }).stdout;
  for (const table of exportTables(exportDir)) assert.match(listed, new RegExp(`cda\\.${table.toLowerCase()}`));
});
