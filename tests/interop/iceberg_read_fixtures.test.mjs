// Interop: `floe table scan` over the Iceberg fixtures written by Spark, Java
// and Athena (shared/fixtures/iceberg/icebird) against rows this test derives
// on its own: manifests decoded with avsc, data and delete files read with
// DuckDB, deletes applied in SQL with the spec's sequence-number rules
// (position deletes: delete seq >= data seq; equality deletes: delete seq >
// data seq; same partition unless the delete is unpartitioned), columns
// projected by the Parquet field id onto the snapshot's schema names.
// Every snapshot of every table is read with --snapshot, the current one also
// without it, and the row counts the fixtures document are checked.
//
// Env: FLOE_BIN (required), FLOE_SOURCE_DIR, FLOE_SHARED_DIR (optional).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import avro from 'avsc';

import { BigLong } from '../tools/avro_exact.mjs';
import { DuckDBInstance } from '@duckdb/node-api';

const SOURCE = process.env.FLOE_SOURCE_DIR ?? path.resolve(import.meta.dirname, '..', '..');
const SHARED = process.env.FLOE_SHARED_DIR ?? path.join(SOURCE, '..', 'shared');
const FIXTURES = path.join(SHARED, 'fixtures', 'iceberg', 'icebird');
const FLOE = process.env.FLOE_BIN;

// Live rows of the current snapshot, as the fixtures' README states them.
const EXPECTED_CURRENT_ROWS = {
  'spark/bunnies': 20,
  'java/bunnies': 15,
  'spark/rename_column': 4,
  'athena/example': 2,
};

const typeOf = (schema) => avro.Type.forSchema(schema, { registry: { long: BigLong }, wrapUnions: 'auto' });

function readAvro(file) {
  return new Promise((resolve, reject) => {
    const records = [];
    avro.createFileDecoder(file, { codecs: { null: (b, cb) => cb(null, b), deflate: zlib.inflateRaw }, parseHook: typeOf })
      .on('data', (r) => records.push(r))
      .on('error', reject)
      .on('end', () => resolve(records));
  });
}

// Metadata JSON with 64-bit ids kept as strings.
function readMetadata(file) {
  const text = fs.readFileSync(file, 'utf8')
    .replace(/("(?:snapshot-id|parent-snapshot-id|current-snapshot-id)"\s*:\s*)(-?\d+)/g, '$1"$2"');
  return JSON.parse(text);
}

function latestMetadata(table) {
  const dir = path.join(table, 'metadata');
  const hint = path.join(dir, 'version-hint.text');
  if (fs.existsSync(hint)) return path.join(dir, `v${fs.readFileSync(hint, 'utf8').trim()}.metadata.json`);
  return path.join(dir, fs.readdirSync(dir).filter((n) => n.endsWith('.metadata.json')).sort().at(-1));
}

function tables() {
  const out = [];
  for (const engine of fs.readdirSync(FIXTURES).sort()) {
    const engineDir = path.join(FIXTURES, engine);
    if (!fs.statSync(engineDir).isDirectory()) continue;
    for (const name of fs.readdirSync(engineDir).sort()) {
      if (fs.existsSync(path.join(engineDir, name, 'metadata'))) out.push(`${engine}/${name}`);
    }
  }
  return out;
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const sqlIdent = (s) => `"${s.replaceAll('"', '""')}"`;
const canonical = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x));

let connection;
async function duck() {
  if (!connection) connection = await (await DuckDBInstance.create(':memory:')).connect();
  return connection;
}
async function query(sql) {
  return (await (await duck()).runAndReadAll(sql)).getRowObjectsJson();
}

// Every live file of a snapshot, with its inherited data sequence number.
async function snapshotFiles(snapshot, localize) {
  const files = [];
  for (const manifest of await readAvro(localize(snapshot['manifest-list']))) {
    for (const entry of await readAvro(localize(manifest.manifest_path))) {
      if (entry.status === 2) continue;
      const seq = entry.sequence_number ?? manifest.sequence_number;
      files.push({ ...entry.data_file, seq: BigInt(seq), spec: manifest.partition_spec_id });
    }
  }
  return files;
}

// file column name per table field id: Parquet field ids, else the name mapping, else names.
async function fileColumnsById(file, metadata, schema) {
  const rows = await query(`SELECT name, field_id FROM parquet_schema(${sqlString(file)})`);
  const top = rows.slice(1);  // the first row is the root
  const byId = new Map();
  for (const r of top) if (r.field_id !== null) byId.set(Number(r.field_id), r.name);
  if (byId.size > 0) return byId;
  const mapping = metadata.properties?.['schema.name-mapping.default'];
  if (mapping) {
    for (const m of JSON.parse(mapping)) {
      const hit = top.find((r) => m.names.includes(r.name));
      if (hit && m['field-id'] !== undefined) byId.set(m['field-id'], hit.name);
    }
  } else {
    for (const f of schema.fields) if (top.some((r) => r.name === f.name)) byId.set(f.id, f.name);
  }
  return byId;
}

async function expectedRows(metadata, snapshot, schema, localize) {
  const files = await snapshotFiles(snapshot, localize);
  const data = files.filter((f) => f.content === 0);
  const positionDeletes = files.filter((f) => f.content === 1);
  const equalityDeletes = files.filter((f) => f.content === 2);
  const unpartitioned = (spec) => (metadata['partition-specs'].find((s) => s['spec-id'] === spec)?.fields ?? []).length === 0;
  const samePartition = (d, f) => unpartitioned(d.spec) || (d.spec === f.spec && canonical(d.partition) === canonical(f.partition));
  const rows = [];
  for (const f of data) {
    const local = localize(f.file_path);
    const columns = await fileColumnsById(local, metadata, schema);
    const select = schema.fields.map((field) =>
      (columns.has(field.id) ? `d.${sqlIdent(columns.get(field.id))}` : 'NULL') + ` AS ${sqlIdent(field.name)}`);
    const where = [];
    const pos = positionDeletes.filter((d) => d.seq >= f.seq && samePartition(d, f));
    if (pos.length > 0) {
      const union = pos.map((d) => `SELECT file_path, pos FROM read_parquet(${sqlString(localize(d.file_path))})`).join(' UNION ALL ');
      where.push(`NOT EXISTS (SELECT 1 FROM (${union}) p WHERE p.file_path = ${sqlString(f.file_path)} AND p.pos = d.file_row_number)`);
    }
    for (const e of equalityDeletes.filter((d) => d.seq > f.seq && samePartition(d, f))) {
      const deleteColumns = await fileColumnsById(localize(e.file_path), metadata, schema);
      const match = e.equality_ids.map((id) => {
        const dataColumn = columns.has(id) ? `d.${sqlIdent(columns.get(id))}` : 'NULL';
        return `e.${sqlIdent(deleteColumns.get(id))} IS NOT DISTINCT FROM ${dataColumn}`;
      });
      where.push(`NOT EXISTS (SELECT 1 FROM read_parquet(${sqlString(localize(e.file_path))}) e WHERE ${match.join(' AND ')})`);
    }
    const sql = `SELECT ${select.join(', ')} FROM read_parquet(${sqlString(local)}, file_row_number=true, hive_partitioning=false) d` +
      (where.length ? ` WHERE ${where.join(' AND ')}` : '');
    rows.push(...await query(sql));
  }
  return rows;
}

// Values as text (floe prints longs as numbers, DuckDB's JSON rows as strings).
const normalize = (row) => JSON.stringify(Object.entries(row).map(([k, v]) => [k, v === null ? null : String(v)]));

// Column types the filter check covers, with the order of DuckDB's JSON values.
const numeric = { compare: (a, b) => Number(a) - Number(b) };
const FILTERABLE = {
  int: numeric,
  long: numeric,
  double: numeric,
  string: { compare: (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) },
};
const OPS = { '=': (c) => c === 0, '<': (c) => c < 0, '>=': (c) => c >= 0 };

function floeScan(metadataFile, mapping, extra) {
  const out = execFileSync(FLOE, ['table', 'scan', '--metadata', metadataFile, '--location-map', mapping, ...extra],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  return out.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
}

function compareRows(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: floe printed ${actual.length} rows, expected ${expected.length}`);
  const a = actual.map(normalize).sort();
  const e = expected.map(normalize).sort();
  assert.deepEqual(a, e, what);
}

test('floe table scan reads every Iceberg fixture snapshot like the independent reading', async (t) => {
  if (!FLOE) {
    t.skip('FLOE_BIN is not set');
    return;
  }
  if (!fs.existsSync(FIXTURES)) {
    t.skip(`shared Iceberg fixtures not found at ${FIXTURES} (set FLOE_SHARED_DIR)`);
    return;
  }
  const found = tables();
  assert.deepEqual([...found].sort(), Object.keys(EXPECTED_CURRENT_ROWS).sort());
  for (const name of found) {
    await t.test(name, async () => {
      const table = path.join(FIXTURES, name);
      const metadataFile = latestMetadata(table);
      const metadata = readMetadata(metadataFile);
      const location = metadata.location.replace(/\/+$/, '');
      const localize = (p) => (p.startsWith(location) ? table + p.slice(location.length) : p);
      const mapping = `${location}=${table}`;
      const schemaById = (id) => metadata.schemas.find((s) => s['schema-id'] === id);

      const current = metadata.snapshots.find((s) => s['snapshot-id'] === metadata['current-snapshot-id']);
      assert.ok(current, 'the fixture has a current snapshot');
      const currentRows = floeScan(metadataFile, mapping, []);
      const expected = await expectedRows(metadata, current, schemaById(metadata['current-schema-id']), localize);
      compareRows(currentRows, expected, `${name} current snapshot`);
      assert.equal(currentRows.length, EXPECTED_CURRENT_ROWS[name], `${name}: documented row count`);

      for (const snapshot of metadata.snapshots) {
        const id = snapshot['snapshot-id'];
        const schema = schemaById(snapshot['schema-id'] ?? metadata['current-schema-id']);
        const rows = floeScan(metadataFile, mapping, ['--snapshot', id]);
        compareRows(rows, await expectedRows(metadata, snapshot, schema, localize), `${name} snapshot ${id}`);
      }

      // Column selection and a filter: the same rows, narrowed.
      const first = schemaById(metadata['current-schema-id']).fields[0];
      const narrowed = floeScan(metadataFile, mapping, ['--columns', first.name]);
      compareRows(narrowed, expected.map((r) => ({ [first.name]: r[first.name] })), `${name} --columns`);
      const limited = floeScan(metadataFile, mapping, ['--limit', '1']);
      assert.equal(limited.length, Math.min(1, expected.length));

      // A filter on each primitive number/string column at its middle value:
      // floe prunes and filters; the same rows must come out as filtering here.
      for (const field of schemaById(metadata['current-schema-id']).fields) {
        const kind = FILTERABLE[field.type];
        if (!kind) continue;
        const values = expected.map((r) => r[field.name]).filter((v) => v !== null).sort(kind.compare);
        if (values.length === 0) continue;
        const pivot = values[Math.floor(values.length / 2)];
        for (const op of ['=', '<', '>=']) {
          const filtered = floeScan(metadataFile, mapping, ['--filter', `${field.name} ${op} ${pivot}`]);
          const want = expected.filter((r) => r[field.name] !== null && OPS[op](kind.compare(r[field.name], pivot)));
          compareRows(filtered, want, `${name} --filter "${field.name} ${op} ${pivot}"`);
        }
      }
    });
  }
});

test('floe table scan reads a fixture copied into a filesystem catalog', async (t) => {
  if (!FLOE) {
    t.skip('FLOE_BIN is not set');
    return;
  }
  const source = path.join(FIXTURES, 'spark', 'bunnies');
  if (!fs.existsSync(source)) {
    t.skip(`shared Iceberg fixtures not found at ${FIXTURES} (set FLOE_SHARED_DIR)`);
    return;
  }
  const warehouse = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'floe-scan-'));
  try {
    const table = path.join(warehouse, 'db', 'bunnies');
    fs.cpSync(source, table, { recursive: true });
    const metadata = readMetadata(latestMetadata(table));
    const out = execFileSync(FLOE, ['table', 'scan', 'db.bunnies', '--catalog', `file://${warehouse}`,
      '--location-map', `${metadata.location}=${table}`], { encoding: 'utf8' });
    const viaCatalog = out.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
    const viaMetadata = floeScan(latestMetadata(source), `${metadata.location}=${source}`, []);
    compareRows(viaCatalog, viaMetadata, 'catalog vs --metadata');
    assert.equal(viaCatalog.length, EXPECTED_CURRENT_ROWS['spark/bunnies']);
  } finally {
    fs.rmSync(warehouse, { recursive: true, force: true });
  }
});
