// Secrets never reach floe's output (issue 25 item 16): every error path
// that formats a catalog URI, an S3 endpoint or a server's answer is run
// with a secret in it (a PostgreSQL password in the user information and in
// `?password=`, a libpq key=value string, user information in a rejected
// REST uri or S3 endpoint, a token in a query string, an OAuth server and a
// catalog that echo the client secret and the bearer token back), through
// `floe run --once`, `floe maintain` and `floe table list`; the secret must
// appear nowhere in stdout or stderr, and each run must fail.
//
// Env: FLOE_BIN (the floe binary, required).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

import { FLOE, runFloe, runFloeOk } from '../tools/pipeline_oracle.mjs';

const SECRET = 'Sup3rS3cretValue42';
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-secrets-'));
after(() => fs.rmSync(workDir, { recursive: true, force: true }));

function config(name, { catalog, s3 = '' }) {
  const file = path.join(workDir, `${name}.toml`);
  fs.writeFileSync(file, `name = "${name}"
[source]
format = "cda"
uri = "${path.join(workDir, 'export')}"
[catalog]
${catalog}
[target]
namespace = "cda"
[state]
dir = "${path.join(workDir, `state-${name}`)}"
${s3}
`);
  return file;
}

function check(label, result) {
  const output = result.stdout + result.stderr;
  assert.notEqual(result.status, 0, `${label}: expected a failure:\n${output}`);
  assert.ok(!output.includes(SECRET), `${label} printed the secret:\n${output}`);
  assert.ok(output.trim().length > 0, `${label} said nothing`);
  return output;
}

function expectMasked(label, args, env = {}) {
  return check(label, runFloe(args, { timeoutMs: 60_000, env }));
}

// For servers in this process: spawnSync would block the event loop they answer from.
function expectMaskedAsync(label, args, env) {
  return new Promise((resolve) => {
    const child = spawn(FLOE, args, { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve(check(label, { status, stdout, stderr }));
    });
  });
}

test('catalog URIs, S3 endpoints and server answers are printed without their secrets', async (t) => {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return;
  }
  runFloeOk(['demo', 'generate', path.join(workDir, 'export'), '--seed', '2', '--rows', '50', '--tables', '1',
    '--folders', '1']);
  const catalogs = {
    'postgres-userinfo': `type = "sql"\nuri = "postgresql://ingest:${SECRET}@127.0.0.1:1/cat"\nwarehouse = "${workDir}/wh"`,
    'postgres-query': `type = "sql"\nuri = "postgresql://127.0.0.1:1/cat?user=ingest&password=${SECRET}"\nwarehouse = "${workDir}/wh"`,
    'unknown-scheme': `type = "sql"\nuri = "mysql://ingest:${SECRET}@127.0.0.1/cat"\nwarehouse = "${workDir}/wh"`,
    'rest-userinfo': `type = "rest"\nuri = "http://ingest:${SECRET}@127.0.0.1:1"`,
    'rest-query': `type = "rest"\nuri = "http://127.0.0.1:1/?token=${SECRET}"`,
    'rest-scheme': `type = "rest"\nuri = "ftp://ingest:${SECRET}@127.0.0.1:1"`,
  };
  for (const [name, catalog] of Object.entries(catalogs)) {
    const file = config(name, { catalog });
    expectMasked(`floe run (${name})`, ['run', file, '--once']);
    expectMasked(`floe maintain (${name})`, ['maintain', file]);
  }
  for (const uri of [`postgresql://ingest:${SECRET}@127.0.0.1:1/cat`,
    `postgresql://127.0.0.1:1/cat?password=${SECRET}`, `rest+http://u:${SECRET}@127.0.0.1:1`,
    `rest+http://127.0.0.1:1/x?token=${SECRET}`, `sqlite3://u:${SECRET}@x`]) {
    expectMasked(`floe table list --catalog ${uri.split(SECRET).join('…')}`, ['table', 'list', '--catalog', uri]);
  }
  // An S3 endpoint with user information (rejected: keys belong in access_key_id/secret_access_key).
  const s3 = config('s3-endpoint', {
    catalog: `type = "sql"\nuri = "sqlite://${workDir}/c.db"\nwarehouse = "s3://bucket/wh"`,
    s3: `[s3]\nendpoint = "http://AKIA:${SECRET}@127.0.0.1:1"`,
  });
  expectMasked('floe run (S3 endpoint)', ['run', s3, '--once']);
  expectMasked('floe table list (S3 endpoint in the environment)',
    ['table', 'list', '--catalog', `sqlite://${workDir}/c2.db`, '--warehouse', 's3://bucket/wh'],
    { AWS_ENDPOINT_URL: `http://AKIA:${SECRET}@127.0.0.1:1`, AWS_ACCESS_KEY_ID: 'AKIA', AWS_SECRET_ACCESS_KEY: 'x' });

  // Servers that echo what they were sent.
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      if (req.url.startsWith('/v1/oauth/tokens')) {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: 'invalid_client', error_description: `bad client: ${decodeURIComponent(body)}` }));
        return;
      }
      res.statusCode = 500;
      res.end(JSON.stringify({ error: { message: `you sent ${req.headers.authorization}`, type: 'Oops', code: 500 } }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const uri = `rest+http://127.0.0.1:${server.address().port}`;
    await expectMaskedAsync('OAuth error echoing the client secret', ['table', 'list', '--catalog', uri],
      { FLOE_CATALOG_CREDENTIAL: `ingest:${SECRET}`, FLOE_CATALOG_TOKEN: '' });
    await expectMaskedAsync('catalog error echoing the bearer token', ['table', 'list', '--catalog', uri],
      { FLOE_CATALOG_TOKEN: SECRET, FLOE_CATALOG_CREDENTIAL: '' });
  } finally {
    server.close();
  }
});
