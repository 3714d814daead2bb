// `floe serve` doing what engines expect of a REST catalog (issue 25 items
// 8-11 and 13), driven by iceberg-js (an independent REST client) and raw
// fetch: a staged create committed with assert-create, as Iceberg Java's
// createTransaction does for Spark's and Trino's CTAS, and a replace
// transaction (RTAS) on the existing table; multi-table transactions,
// atomic (a failing requirement in one table leaves every table and the
// metadata folders as they were); server-side paging; 501 for what floe
// does not implement; unregister and register. Every response of the run is
// recorded and validated against apache/iceberg's
// rest-catalog-open-api.yaml (tests/golden/) by tests/tools/openapi_responses.py
// (Python jsonschema): an unlisted status or a body that does not match the
// schema fails the test. The CTAS table's snapshot points at a manifest list
// written by avsc, which `floe table scan` reads.
//
// Env: FLOE_BIN (the floe binary, required); FLOE_KEEP_TEMP=1 keeps the
// work directory. Needs python3 with jsonschema (4.10 as Debian 12 ships it, or
// newer with referencing) and PyYAML.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

import avro from 'avsc';
import { IcebergError, IcebergRestCatalog } from 'iceberg-js';

import { startServe } from '../tools/floe_serve.mjs';
import { FLOE, runFloeOk } from '../tools/pipeline_oracle.mjs';

const SOURCE = process.env.FLOE_SOURCE_DIR ?? path.resolve(import.meta.dirname, '..', '..');
const SPEC = path.join(SOURCE, 'tests', 'golden', 'rest-catalog-open-api.yaml');
const TOKEN = 'engines-test-token-0123456789';
const PREFIX = 'cat';
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-serve-engines-'));
after(() => {
  if (process.env.FLOE_KEEP_TEMP !== '1') fs.rmSync(workDir, { recursive: true, force: true });
});

const schema = {
  type: 'struct',
  'schema-id': 0,
  fields: [
    { id: 1, name: 'id', type: 'long', required: true },
    { id: 2, name: 'name', type: 'string', required: false },
  ],
};

// An empty v2 manifest list (no manifests): an Avro container of no blocks, its header encoded by avsc
// (avsc's file encoder writes nothing at all for zero records).
function writeEmptyManifestList(file, snapshotId) {
  const manifestFile = {
    type: 'record',
    name: 'manifest_file',
    fields: [
      ['manifest_path', 'string', 500], ['manifest_length', 'long', 501], ['partition_spec_id', 'int', 502],
      ['content', 'int', 517], ['sequence_number', 'long', 515], ['min_sequence_number', 'long', 516],
      ['added_snapshot_id', 'long', 503], ['added_files_count', 'int', 504], ['existing_files_count', 'int', 505],
      ['deleted_files_count', 'int', 506], ['added_rows_count', 'long', 512], ['existing_rows_count', 'long', 513],
      ['deleted_rows_count', 'long', 514],
    ].map(([name, t, id]) => ({ name, type: t, 'field-id': id })),
  };
  avro.Type.forSchema(manifestFile);  // the schema is valid Avro
  const header = avro.Type.forSchema({
    type: 'record',
    name: 'org.apache.avro.file.Header',
    fields: [
      { name: 'magic', type: { type: 'fixed', name: 'Magic', size: 4 } },
      { name: 'meta', type: { type: 'map', values: 'bytes' } },
      { name: 'sync', type: { type: 'fixed', name: 'Sync', size: 16 } },
    ],
  });
  const meta = { 'avro.schema': JSON.stringify(manifestFile), 'avro.codec': 'null', 'snapshot-id': String(snapshotId),
    'parent-snapshot-id': 'null', 'sequence-number': '1', 'format-version': '2' };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, header.toBuffer({
    magic: Buffer.from('Obj\x01', 'latin1'),
    meta: Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, Buffer.from(v)])),
    sync: Buffer.alloc(16, 7),
  }));
}

test('engines through floe serve: CTAS/RTAS, transactions, paging, 501s; every answer matches the OpenAPI spec', async (t) => {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return;
  }
  const python = spawnSync('python3', ['-c', 'import jsonschema, yaml'], { encoding: 'utf8' });
  if (python.status !== 0) {
    t.skip(`skipped: python3 with jsonschema and PyYAML is needed (Debian: python3-jsonschema python3-yaml): ${python.stderr}`);
    return;
  }
  const server = await startServe(workDir, ['--token', TOKEN, '--prefix', PREFIX]);
  const recorded = [];
  // Every exchange, iceberg-js's and ours, is recorded for the OpenAPI check.
  const recordingFetch = async (url, init = {}) => {
    const response = await fetch(url, init);
    const body = await response.clone().text();
    recorded.push({ method: (init.method ?? 'GET').toUpperCase(), path: new URL(String(url)).pathname,
      status: response.status, body });
    return response;
  };
  const auth = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
  const call = async (method, route, body) => {
    const response = await recordingFetch(server.baseUrl + route, {
      method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : null };
  };
  // With a warehouse, iceberg-js asks /v1/config and uses the prefix it answers.
  const catalog = new IcebergRestCatalog({ baseUrl: server.baseUrl, warehouse: 'wh', auth: { type: 'bearer', token: TOKEN },
    fetch: recordingFetch });
  const expectStatus = async (promise, status) => {
    await assert.rejects(promise, (err) => {
      assert.ok(err instanceof IcebergError, String(err));
      assert.equal(err.status, status, err.message);
      return true;
    });
  };
  const P = `/v1/${PREFIX}`;
  try {
    const config = await call('GET', '/v1/config');
    assert.equal(config.json.overrides.prefix, PREFIX);
    assert.ok(config.json.endpoints.includes(`POST /v1/{prefix}/transactions/commit`));

    // Paging: five namespaces, two per page.
    for (const name of ['n1', 'n2', 'n3', 'n4', 'n5']) await catalog.createNamespace({ namespace: [name] });
    await expectStatus(catalog.createNamespace({ namespace: ['n1'] }), 409);
    const seen = [];
    let token = '';
    let pages = 0;
    do {
      const page = await catalog.listNamespaces({ pageSize: 2, pageToken: token });
      assert.ok(page.namespaces.length <= 2, JSON.stringify(page));
      seen.push(...page.namespaces.map((n) => n.namespace.join('.')));
      token = page.nextPageToken;
      pages += 1;
    } while (token);
    assert.deepEqual(seen, ['n1', 'n2', 'n3', 'n4', 'n5']);
    assert.equal(pages, 3);
    const unpaged = await call('GET', `${P}/namespaces`);
    assert.equal(unpaged.json.namespaces.length, 5);
    assert.equal(unpaged.json['next-page-token'], null);
    assert.equal((await call('GET', `${P}/namespaces?pageToken=zz`)).status, 400);
    for (const name of ['t3', 't1', 't2']) await catalog.createTable({ namespace: ['n1'] }, { name, schema });
    const tablePage = await catalog.listTables({ namespace: ['n1'] }, { pageSize: 2, pageToken: '' });
    assert.deepEqual(tablePage.identifiers.map((i) => i.name), ['t1', 't2']);
    const rest = await catalog.listTables({ namespace: ['n1'] }, { pageSize: 2, pageToken: tablePage.nextPageToken });
    assert.deepEqual(rest.identifiers.map((i) => i.name), ['t3']);
    assert.equal(rest.nextPageToken, undefined);

    // CTAS the way Iceberg Java's createTransaction does it: stage, then commit with assert-create.
    const staged = await catalog.createTableResult({ namespace: ['n2'] }, {
      name: 'ctas', schema, 'stage-create': true, properties: { 'format-version': '2', owner: 'spark' },
    });
    assert.equal(staged['metadata-location'], undefined);
    assert.equal(await catalog.tableExists({ namespace: ['n2'], name: 'ctas' }), false);
    const meta = staged.metadata;
    const snapshotId = 4242;
    const manifestList = path.join(meta.location, 'metadata', `snap-${snapshotId}-1-ctas.avro`);
    writeEmptyManifestList(manifestList, snapshotId);
    const createChanges = [
      { action: 'assign-uuid', uuid: meta['table-uuid'] },
      { action: 'upgrade-format-version', 'format-version': meta['format-version'] },
      { action: 'add-schema', schema: meta.schemas[0], 'last-column-id': meta['last-column-id'] },
      { action: 'set-current-schema', 'schema-id': -1 },
      { action: 'add-spec', spec: meta['partition-specs'][0] },
      { action: 'set-default-spec', 'spec-id': -1 },
      { action: 'add-sort-order', 'sort-order': meta['sort-orders'][0] },
      { action: 'set-default-sort-order', 'sort-order-id': -1 },
      { action: 'set-location', location: meta.location },
      { action: 'set-properties', updates: meta.properties },
      { action: 'add-snapshot', snapshot: { 'snapshot-id': snapshotId, 'sequence-number': 1,
        'timestamp-ms': Date.now(), 'manifest-list': manifestList, summary: { operation: 'append' },
        'schema-id': 0 } },
      { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': snapshotId },
    ];
    const ctas = await catalog.updateTable({ namespace: ['n2'], name: 'ctas' },
      { requirements: [{ type: 'assert-create' }], updates: createChanges });
    assert.equal(ctas.metadata['table-uuid'], meta['table-uuid']);
    assert.equal(ctas.metadata['current-snapshot-id'], snapshotId);
    assert.equal(ctas.metadata.properties.owner, 'spark');
    assert.ok(fs.existsSync(ctas['metadata-location']));
    // A second CTAS of the same name lost the race: 409, and nothing is left behind.
    await expectStatus(catalog.updateTable({ namespace: ['n2'], name: 'ctas' },
      { requirements: [{ type: 'assert-create' }], updates: createChanges }), 409);
    assert.equal(fs.readdirSync(path.dirname(ctas['metadata-location'])).filter((f) => f.endsWith('.json')).length, 1);
    const scanned = runFloeOk(['table', 'scan', 'n2.ctas', '--catalog', `rest+${server.baseUrl}`],
      { env: { FLOE_CATALOG_TOKEN: TOKEN } });
    assert.equal(scanned.stdout.trim(), '');

    // RTAS: replace the table's schema and contents in one commit, as Java's replaceTransaction does.
    const base = await catalog.loadTable({ namespace: ['n2'], name: 'ctas' });
    const replacement = { type: 'struct', 'schema-id': 1, fields: [
      { id: 3, name: 'key', type: 'string', required: true }, { id: 4, name: 'value', type: 'double', required: false }] };
    const rtasSnapshot = 4343;
    const rtasList = path.join(meta.location, 'metadata', `snap-${rtasSnapshot}-1-rtas.avro`);
    writeEmptyManifestList(rtasList, rtasSnapshot);
    const rtas = await catalog.updateTable({ namespace: ['n2'], name: 'ctas' }, {
      requirements: [{ type: 'assert-table-uuid', uuid: base['table-uuid'] },
        { type: 'assert-current-schema-id', 'current-schema-id': 0 },
        { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': snapshotId }],
      updates: [
        { action: 'remove-snapshot-ref', 'ref-name': 'main' },
        { action: 'add-schema', schema: replacement, 'last-column-id': 4 },
        { action: 'set-current-schema', 'schema-id': -1 },
        { action: 'add-spec', spec: { 'spec-id': 1, fields: [] } },
        { action: 'set-default-spec', 'spec-id': -1 },
        { action: 'add-sort-order', 'sort-order': { 'order-id': 0, fields: [] } },
        { action: 'set-default-sort-order', 'sort-order-id': -1 },
        { action: 'set-properties', updates: { replaced: 'yes' } },
        { action: 'add-snapshot', snapshot: { 'snapshot-id': rtasSnapshot, 'sequence-number': 2,
          'timestamp-ms': Date.now(), 'manifest-list': rtasList, summary: { operation: 'overwrite' }, 'schema-id': 1 } },
        { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': rtasSnapshot },
      ],
    });
    assert.equal(rtas.metadata['current-schema-id'], 1);
    assert.equal(rtas.metadata['current-snapshot-id'], rtasSnapshot);
    assert.equal(rtas.metadata.properties.replaced, 'yes');

    // Multi-table transactions: both tables or neither.
    const ids = [{ namespace: ['n3'], name: 'a' }, { namespace: ['n3'], name: 'b' }];
    const uuids = [];
    for (const id of ids) uuids.push((await catalog.createTable({ namespace: id.namespace }, { name: id.name, schema }))['table-uuid']);
    const change = (i, uuid, props) => ({ identifier: ids[i], requirements: [{ type: 'assert-table-uuid', uuid }],
      updates: [{ action: 'set-properties', updates: props }] });
    const committed = await call('POST', `${P}/transactions/commit`,
      { 'table-changes': [change(0, uuids[0], { batch: '1' }), change(1, uuids[1], { batch: '1' })] });
    assert.equal(committed.status, 204, JSON.stringify(committed.json));
    for (const id of ids) assert.equal((await catalog.loadTable(id)).properties.batch, '1');
    const metadataFiles = () => ids.map((id) => fs.readdirSync(path.join(workDir, 'wh', 'n3', id.name, 'metadata')).length);
    const filesBefore = metadataFiles();
    const refused = await call('POST', `${P}/transactions/commit`,
      { 'table-changes': [change(0, uuids[0], { batch: '2' }), change(1, 'not-the-uuid', { batch: '2' })] });
    assert.equal(refused.status, 409, JSON.stringify(refused.json));
    for (const id of ids) assert.equal((await catalog.loadTable(id)).properties.batch, '1');
    assert.deepEqual(metadataFiles(), filesBefore, 'a refused transaction leaves no metadata file behind');
    const missing = await call('POST', `${P}/transactions/commit`,
      { 'table-changes': [{ identifier: { namespace: ['n3'], name: 'nope' }, requirements: [], updates: [] }] });
    assert.equal(missing.status, 404);
    assert.equal((await call('POST', `${P}/transactions/commit`, { 'table-changes': [{ requirements: [] }] })).status, 400);

    // What floe does not implement: 501 with the ErrorModel, never an unlisted status.
    for (const [method, route, body] of [
      ['GET', `${P}/namespaces/n1/views`],
      ['POST', `${P}/namespaces/n1/views`, { name: 'v' }],
      ['GET', `${P}/namespaces/n1/views/v`],
      ['POST', `${P}/views/rename`, { source: { namespace: ['n1'], name: 'v' }, destination: { namespace: ['n1'], name: 'w' } }],
      ['GET', `${P}/namespaces/n1/functions`],
      ['POST', `${P}/namespaces/n1/tables/t1/plan`, {}],
      ['GET', `${P}/namespaces/n1/tables/t1/credentials`],
      ['POST', `${P}/namespaces/n1/tables/t1/metrics`, { 'report-type': 'scan-report' }],
    ]) {
      const r = await call(method, route, body);
      assert.equal(r.status, 501, `${method} ${route}: ${JSON.stringify(r.json)}`);
      assert.equal(r.json.error.code, 501);
    }

    // Unregister keeps the files; register brings the table back.
    const unregistered = await call('POST', `${P}/namespaces/n1/tables/t3/unregister`);
    assert.equal(unregistered.status, 200);
    assert.ok(fs.existsSync(unregistered.json['metadata-location']));
    assert.equal(await catalog.tableExists({ namespace: ['n1'], name: 't3' }), false);
    await catalog.registerTable({ namespace: ['n1'] }, { name: 't3', 'metadata-location': unregistered.json['metadata-location'] });
    assert.equal(await catalog.tableExists({ namespace: ['n1'], name: 't3' }), true);

    // Errors the spec lists.
    await expectStatus(catalog.loadTable({ namespace: ['n1'], name: 'missing' }), 404);
    await expectStatus(catalog.createTable({ namespace: ['nowhere'] }, { name: 'x', schema }), 404);
    await expectStatus(catalog.dropNamespace({ namespace: ['n1'] }), 409);
    await expectStatus(catalog.updateTable({ namespace: ['n1'], name: 't1' },
      { requirements: [{ type: 'assert-table-uuid', uuid: 'wrong' }], updates: [] }), 409);
    await expectStatus(catalog.updateTable({ namespace: ['n1'], name: 't1' },
      { requirements: [], updates: [{ action: 'no-such-update' }] }), 400);
    const anonymous = await recordingFetch(`${server.baseUrl}${P}/namespaces`);
    assert.equal(anonymous.status, 401);
    await catalog.updateNamespaceProperties({ namespace: ['n4'] }, { updates: { a: '1' }, removals: ['b'] });
    await catalog.loadNamespaceMetadata({ namespace: ['n4'] });
    await catalog.dropTable({ namespace: ['n1'], name: 't2' }, { purge: true });
    await catalog.dropNamespace({ namespace: ['n5'] });
    await call('POST', `${P}/tables/rename`, { source: { namespace: ['n1'], name: 't1' },
      destination: { namespace: ['n4'], name: 't1' } });
  } finally {
    const { code, signal } = await server.stop();
    assert.equal(signal, null, server.stderr());
    assert.equal(code, 0, server.stderr());
  }

  const file = path.join(workDir, 'responses.json');
  fs.writeFileSync(file, JSON.stringify(recorded, null, 1));
  const check = spawnSync('python3', [path.join(SOURCE, 'tests', 'tools', 'openapi_responses.py'), SPEC, file],
    { encoding: 'utf8' });
  t.diagnostic(check.stdout.trim().split('\n').at(-2) ?? '');
  assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
  assert.ok(recorded.length > 50, `only ${recorded.length} responses recorded`);
});
