// `floe serve` against an independent Iceberg REST client (iceberg-js): it
// creates a namespace and a table, loads it, commits schema and property
// changes with requirements, a stale commit is answered 409, bad names are
// 400; then floe's own REST client (`floe table list|describe --catalog
// rest+http://...`) sees the same tables. The server stops cleanly on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IcebergRestCatalog, IcebergError } from 'iceberg-js';

import { startServe } from '../tools/floe_serve.mjs';

const FLOE = process.env.FLOE_BIN;
const TOKEN = 'interop-token-0123456789';

async function expectStatus(promise, status, type) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof IcebergError, String(err));
    assert.equal(err.status, status, err.message);
    if (type) assert.equal(err.icebergType, type);
    return true;
  });
}

const schemaV0 = {
  type: 'struct',
  'schema-id': 0,
  fields: [
    { id: 1, name: 'id', type: 'long', required: true },
    { id: 2, name: 'name', type: 'string', required: false },
    { id: 3, name: 'ts', type: 'timestamptz', required: false },
  ],
};

test('iceberg-js and floe agree through floe serve', async (t) => {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build the floe binary)');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-rest-'));
  const server = await startServe(dir, ['--token', TOKEN]);
  try {
    const { baseUrl } = server;
    const catalog = new IcebergRestCatalog({ baseUrl, auth: { type: 'bearer', token: TOKEN } });
    const anonymous = new IcebergRestCatalog({ baseUrl });
    await expectStatus(anonymous.listNamespaces(), 401, 'NotAuthorizedException');

    // Namespaces.
    await catalog.createNamespace({ namespace: ['analytics'] }, { properties: { owner: 'js' } });
    await catalog.createNamespace({ namespace: ['analytics', 'daily'] });
    await expectStatus(catalog.createNamespace({ namespace: ['analytics'] }), 409, 'AlreadyExistsException');
    const top = await catalog.listNamespaces();
    assert.deepEqual(top.namespaces, [{ namespace: ['analytics'] }]);
    const children = await catalog.listNamespaces({ parent: { namespace: ['analytics'] } });
    assert.deepEqual(children.namespaces, [{ namespace: ['analytics', 'daily'] }]);
    assert.equal(await catalog.namespaceExists({ namespace: ['analytics', 'daily'] }), true);
    assert.equal(await catalog.namespaceExists({ namespace: ['nope'] }), false);
    const updated = await catalog.updateNamespaceProperties({ namespace: ['analytics'] },
      { updates: { tier: 'gold' }, removals: ['missing-key'] });
    assert.deepEqual(updated.missing, ['missing-key']);
    const props = await catalog.loadNamespaceMetadata({ namespace: ['analytics'] });
    assert.equal(props.properties.owner, 'js');
    assert.equal(props.properties.tier, 'gold');

    // Tables.
    const created = await catalog.createTable({ namespace: ['analytics'] }, {
      name: 'events',
      schema: schemaV0,
      'partition-spec': { fields: [{ 'source-id': 3, name: 'ts_day', transform: 'day' }] },
      'write-order': { 'order-id': 0, fields: [] },
      properties: { 'format-version': '2', 'created-by': 'iceberg-js' },
    });
    assert.equal(created['format-version'], 2);
    assert.equal(created.location, path.join(dir, 'wh', 'analytics', 'events'));
    assert.equal(created['partition-specs'][0].fields[0].transform, 'day');
    assert.equal(created.properties['created-by'], 'iceberg-js');
    await expectStatus(catalog.createTable({ namespace: ['analytics'] }, { name: 'events', schema: schemaV0 }), 409);
    await expectStatus(catalog.createTable({ namespace: ['analytics'] }, { name: '../escape', schema: schemaV0 }),
      400, 'BadRequestException');
    await expectStatus(catalog.createTable({ namespace: ['missing'] }, { name: 't', schema: schemaV0 }), 404,
      'NoSuchNamespaceException');
    const result = await catalog.loadTableResult({ namespace: ['analytics'], name: 'events' });
    assert.ok(fs.existsSync(result['metadata-location']));
    const metadata = result.metadata;
    assert.equal(metadata['table-uuid'], created['table-uuid']);
    assert.equal(await catalog.tableExists({ namespace: ['analytics'], name: 'events' }), true);
    assert.equal(await catalog.tableExists({ namespace: ['analytics'], name: 'nope' }), false);
    await expectStatus(catalog.loadTable({ namespace: ['analytics'], name: 'nope' }), 404, 'NoSuchTableException');

    // A commit with requirements, then a stale one from the same base: 409.
    const fromBase = [
      { type: 'assert-table-uuid', uuid: metadata['table-uuid'] },
      { type: 'assert-current-schema-id', 'current-schema-id': metadata['current-schema-id'] },
      { type: 'assert-last-assigned-field-id', 'last-assigned-field-id': metadata['last-column-id'] },
    ];
    const widened = {
      type: 'struct',
      'schema-id': 1,
      fields: [...metadata.schemas[0].fields, { id: 4, name: 'note', type: 'string', required: false }],
    };
    const committed = await catalog.updateTable({ namespace: ['analytics'], name: 'events' }, {
      requirements: fromBase,
      updates: [
        { action: 'add-schema', schema: widened, 'last-column-id': 4 },
        { action: 'set-current-schema', 'schema-id': -1 },
        { action: 'set-properties', updates: { 'committed-by': 'iceberg-js' } },
      ],
    });
    assert.notEqual(committed['metadata-location'], result['metadata-location']);
    assert.equal(committed.metadata['current-schema-id'], 1);
    assert.equal(committed.metadata['last-column-id'], 4);
    await expectStatus(catalog.updateTable({ namespace: ['analytics'], name: 'events' }, {
      requirements: fromBase,
      updates: [{ action: 'set-properties', updates: { lost: 'yes' } }],
    }), 409, 'CommitFailedException');
    await expectStatus(catalog.updateTable({ namespace: ['analytics'], name: 'events' }, {
      requirements: [],
      updates: [{ action: 'set-current-schema', 'schema-id': 42 }],
    }), 400, 'BadRequestException');
    const reloaded = await catalog.loadTable({ namespace: ['analytics'], name: 'events' });
    assert.equal(reloaded.properties['committed-by'], 'iceberg-js');
    assert.equal(reloaded.properties.lost, undefined);
    assert.equal(reloaded['metadata-log'].length, 1);

    // A second table, renamed; a third dropped with purge.
    await catalog.createTable({ namespace: ['analytics', 'daily'] }, { name: 'tmp', schema: schemaV0 });
    await catalog.renameTable({ source: { namespace: ['analytics', 'daily'], name: 'tmp' },
      destination: { namespace: ['analytics'], name: 'users' } });
    await catalog.createTable({ namespace: ['analytics'] }, { name: 'scratch', schema: schemaV0 });
    const scratch = await catalog.loadTableResult({ namespace: ['analytics'], name: 'scratch' });
    await catalog.dropTable({ namespace: ['analytics'], name: 'scratch' }, { purge: true });
    assert.equal(fs.existsSync(scratch['metadata-location']), false);
    const tables = await catalog.listTables({ namespace: ['analytics'] });
    assert.deepEqual(tables.identifiers.map((id) => id.name).sort(), ['events', 'users']);

    // floe's own REST client sees the same catalog.
    const env = { ...process.env, FLOE_CATALOG_TOKEN: TOKEN };
    const uri = `rest+${baseUrl}`;
    const listed = execFileSync(FLOE, ['table', 'list', '--catalog', uri, 'analytics'], { encoding: 'utf8', env });
    assert.match(listed, /namespace analytics\.daily/);
    assert.match(listed, /table analytics\.events/);
    assert.match(listed, /table analytics\.users/);
    const described = execFileSync(FLOE, ['table', 'describe', '--catalog', uri, 'analytics.events'],
      { encoding: 'utf8', env });
    assert.match(described, new RegExp(`table-uuid: ${metadata['table-uuid']}`));
    assert.match(described, new RegExp(`metadata: ${committed['metadata-location'].replace(/[.]/g, '\\.')}`));
    assert.match(described, /4: note string optional/);
    // Without the token floe reports the authentication failure.
    assert.throws(() => execFileSync(FLOE, ['table', 'list', '--catalog', uri],
      { encoding: 'utf8', stdio: 'pipe', env: { ...process.env, FLOE_CATALOG_TOKEN: '' } }),
    (err) => /authentication failed/.test(String(err.stderr)));
  } finally {
    const { code, signal } = await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    assert.equal(signal, null, `floe serve died of ${signal}: ${server.stderr()}`);
    assert.equal(code, 0, `floe serve exited ${code}: ${server.stderr()}`);
  }
});
