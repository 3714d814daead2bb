// Interop: the manifests, manifest lists and data files floe's Iceberg
// writer produces, checked by independent readers. The test tool
// write_interop_file_set (tests/tools) writes the file set into a temp dir
// (with expected.json); avsc must decode every Avro file with the record
// names and field ids Iceberg readers bind to, and DuckDB must read every data
// file with field ids on the schema and the iceberg.schema footer key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import avro from 'avsc';

import { BigLong } from '../tools/avro_exact.mjs';
import { openDuckDB, sqlString } from '../tools/readers.mjs';

const FLOE = process.env.FLOE_BIN;
const TOOLS = process.env.FLOE_TOOLS_DIR || (FLOE && path.join(path.dirname(FLOE), 'tests', 'tools'));
const DRIVER = TOOLS ? path.join(TOOLS, 'write_interop_file_set') : '';
const skip = !FLOE ? 'FLOE_BIN is not set'
  : !fs.existsSync(DRIVER) ? `the writer driver ${DRIVER} is not built` : false;

const typeOf = (schema) => avro.Type.forSchema(schema, {
  registry: { long: BigLong },
  wrapUnions: true,
  typeHook: (attrs) => (attrs === 'long' || (attrs && attrs.type === 'long') ? BigLong : undefined),
});
const codecs = { null: (buf, cb) => cb(null, buf), deflate: zlib.inflateRaw };

function readAvsc(file) {
  return new Promise((resolve, reject) => {
    const records = [];
    let type, codec, meta;
    avro.createFileDecoder(file, { codecs, parseHook: typeOf })
      .on('metadata', (t, c, header) => { type = t; codec = c; meta = header.meta; })
      .on('data', (r) => records.push(r))
      .on('error', reject)
      .on('end', () => resolve({ type, codec, meta, records }));
  });
}

// Every record name, field id, and array id attribute in a schema JSON tree.
function walkSchema(node, found = { records: new Set(), fieldIds: [], missingIds: [], arrays: [] }) {
  if (Array.isArray(node)) {
    for (const branch of node) walkSchema(branch, found);
  } else if (node && typeof node === 'object') {
    if (node.type === 'record') {
      found.records.add(node.name);
      for (const field of node.fields) {
        if (Number.isInteger(field['field-id'])) found.fieldIds.push(field['field-id']);
        else found.missingIds.push(`${node.name}.${field.name}`);
        walkSchema(field.type, found);
      }
    } else if (node.type === 'array') {
      found.arrays.push(node);
      walkSchema(node.items, found);
    }
  }
  return found;
}

let out;
let expected;
let db;

before(async () => {
  if (skip) return;
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-iceberg-interop-'));
  execFileSync(DRIVER, [out], { stdio: 'pipe' });
  expected = JSON.parse(fs.readFileSync(path.join(out, 'expected.json'), 'utf8'));
  db = await openDuckDB();
});

after(() => {
  db?.close();
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

test('avsc decodes every manifest list with manifest_file / r508 and field ids', { skip }, async () => {
  assert.equal(expected.manifest_lists.length, 3);
  for (const list of expected.manifest_lists) {
    const { type, codec, meta, records } = await readAvsc(list.path);
    const context = `v${list.version} manifest list`;
    assert.equal(codec, 'deflate', context);
    assert.equal(type.name, 'manifest_file', context);
    const schema = JSON.parse(meta['avro.schema'].toString());
    const found = walkSchema(schema);
    assert.ok(found.records.has('r508'), `${context}: r508`);
    assert.deepEqual(found.missingIds, [], `${context}: fields without field-id`);
    for (const array of found.arrays) assert.equal(array['element-id'], 508, context);
    assert.equal(meta['snapshot-id'].toString(), expected.snapshot_id, context);
    assert.equal(meta['parent-snapshot-id'].toString(), 'null', context);
    assert.equal(meta['format-version'].toString(), String(list.version), context);
    if (list.version >= 2) assert.equal(meta['sequence-number'].toString(), '1', context);
    assert.equal(records.length, list.entries, context);
    const ids = new Set(found.fieldIds);
    for (const id of [500, 501, 502, 503, 507, 509, 510, 511]) assert.ok(ids.has(id), `${context}: field ${id}`);
    if (list.version >= 2) for (const id of [515, 516, 517]) assert.ok(ids.has(id), `${context}: field ${id}`);
    assert.equal(ids.has(520), list.version >= 3, `${context}: first_row_id only in v3`);
    for (const record of records) {
      const snapshot = record.added_snapshot_id;
      const value = typeof snapshot === 'bigint' ? snapshot : snapshot.long;
      assert.equal(value, BigInt(expected.snapshot_id), `${context}: exact added_snapshot_id`);
      assert.ok(fs.existsSync(record.manifest_path), `${context}: ${record.manifest_path}`);
      assert.equal(BigInt(fs.statSync(record.manifest_path).size), record.manifest_length, `${context}: length`);
    }
  }
});

test('avsc decodes every manifest with manifest_entry / r2 / r102, field ids and Iceberg metadata', { skip }, async () => {
  const dataPaths = new Set(expected.data_files.map((f) => f.path));
  for (const manifest of expected.manifests) {
    const { type, meta, records } = await readAvsc(manifest.path);
    const context = `v${manifest.version} ${manifest.content} manifest`;
    assert.equal(type.name, 'manifest_entry', context);
    const schema = JSON.parse(meta['avro.schema'].toString());
    const found = walkSchema(schema);
    for (const name of ['r2', 'r102', 'k117_v118', 'k126_v127']) assert.ok(found.records.has(name), `${context}: ${name}`);
    assert.deepEqual(found.missingIds.filter((f) => !/^k\d+_v\d+\./.test(f)), [], `${context}: fields without ids`);
    const ids = new Set(found.fieldIds);
    for (const id of [0, 1, 2, 100, 101, 102, 103, 104, 108, 109, 110, 125, 128, 132, 1000, 1001, 1002]) {
      assert.ok(ids.has(id), `${context}: field ${id}`);
    }
    if (manifest.version === 2) {
      for (const id of [105, 106, 107, 111, 141, 142, 144, 145]) assert.ok(!ids.has(id), `${context}: no field ${id}`);
    }
    if (manifest.version === 3) for (const id of [142, 143, 144, 145]) assert.ok(ids.has(id), `${context}: ${id}`);
    for (const array of found.arrays) {
      assert.ok(array.logicalType === 'map' || Number.isInteger(array['element-id']), `${context}: array ids`);
    }
    // The partition record: one optional field per spec field, day as a date.
    const partition = schema.fields.find((f) => f.name === 'data_file').type.fields.find((f) => f.name === 'partition');
    assert.deepEqual(partition.type.fields.map((f) => f['field-id']), [1000, 1001, 1002], context);
    assert.deepEqual(partition.type.fields[1].type, ['null', { type: 'int', logicalType: 'date' }], context);
    for (const key of ['schema', 'schema-id', 'partition-spec', 'partition-spec-id', 'format-version']) {
      assert.ok(meta[key], `${context}: metadata ${key}`);
    }
    assert.equal(meta.schema.toString(), expected.schema, context);
    assert.equal(meta['format-version'].toString(), String(manifest.version), context);
    if (manifest.version >= 2) assert.equal(meta.content.toString(), manifest.content, context);
    assert.equal(records.length, manifest.entries, context);
    for (const record of records) {
      assert.equal(record.status, 1, `${context}: ADDED`);
      if (manifest.version >= 2) {
        assert.equal(record.sequence_number, null, `${context}: inherited sequence number`);
        assert.equal(record.file_sequence_number, null, `${context}: inherited file sequence number`);
      }
      if (manifest.content === 'data') assert.ok(dataPaths.has(record.data_file.file_path), context);
    }
  }
});

test('DuckDB reads every data file with field ids and the iceberg.schema key', { skip }, async () => {
  const files = [...expected.data_files, { path: expected.position_delete_file, record_count: 1 }];
  for (const file of files) {
    const p = sqlString(file.path);
    const [{ n }] = await db.all(`SELECT count(*) AS n FROM read_parquet(${p}, hive_partitioning = false)`);
    assert.equal(Number(n), file.record_count, file.path);
    const elements = await db.all(`SELECT name, field_id, num_children FROM parquet_schema(${p})`);
    for (const [i, e] of elements.entries()) {
      // The root and the repeated middle groups of lists and maps carry no id.
      if (i === 0 || e.name === 'list' || e.name === 'key_value') continue;
      assert.ok(e.field_id !== null && e.field_id !== undefined, `${file.path}: ${e.name} has no field_id`);
    }
    const kv = await db.all(`SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(${p})`);
    const schema = kv.find((r) => r.key === 'iceberg.schema');
    assert.ok(schema, `${file.path}: iceberg.schema`);
    if (file.path !== expected.position_delete_file) assert.equal(schema.value, expected.schema, file.path);
  }
  const ids = await db.all(`SELECT name, field_id FROM parquet_schema(${sqlString(expected.position_delete_file)})`);
  assert.deepEqual(ids.slice(1).map((e) => [e.name, Number(e.field_id)]), [['file_path', 2147483546], ['pos', 2147483545]]);
  const sample = expected.data_files[0].path;
  const types = await db.all(`DESCRIBE SELECT * FROM read_parquet(${sqlString(sample)}, hive_partitioning = false)`);
  assert.deepEqual(types.map((t) => `${t.column_name} ${t.column_type}`), [
    'id BIGINT', 'name VARCHAR', 'price DECIMAL(12,2)', 'ts TIMESTAMP', 'u UUID', 'tags VARCHAR[]',
    'attrs MAP(VARCHAR, INTEGER)']);
});
