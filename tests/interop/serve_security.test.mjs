// `floe serve` facing untrusted clients (issue 25 items 1-7), over real
// sockets: a REST client with no storage access cannot make a purge delete
// files outside the warehouse; a chunked body cannot outgrow the limit and
// an unauthenticated one is refused before it is read; slow clients hold no
// worker and trickling heads are cut off; connections per client are
// capped; a browser page (headless Chromium, with a DNS mapping standing in
// for rebinding) cannot create a namespace, Host and Origin are checked and
// CORS preflights answered; short tokens and fake loopback names are
// refused at start; names with dots are refused on both sides (the server,
// and floe run for a CDA table).
//
// Env: FLOE_BIN (the floe binary, required); FLOE_KEEP_TEMP=1 keeps the
// work directory. Chromium (/usr/bin/chromium) is optional: without it the
// browser case is skipped with a message.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

import { bodyOf, rawExchange, serveRefuses, startServe, statusOf } from '../tools/floe_serve.mjs';
import { FLOE, runFloe, runFloeOk, writePipelineConfig } from '../tools/pipeline_oracle.mjs';

const TOKEN = 'security-test-token-0123456789';
const CHROMIUM = '/usr/bin/chromium';
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-serve-security-'));
after(() => {
  if (process.env.FLOE_KEEP_TEMP !== '1') fs.rmSync(workDir, { recursive: true, force: true });
});

let dirs = 0;
function freshDir() {
  const dir = path.join(workDir, `s${dirs++}`);
  fs.mkdirSync(dir);
  return dir;
}

const schema = {
  type: 'struct',
  'schema-id': 0,
  fields: [{ id: 1, name: 'id', type: 'long', required: true }],
};

async function call(server, method, route, body, headers = {}) {
  const response = await fetch(server.baseUrl + route, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : null };
}

function requireFloe(t) {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return false;
  }
  return true;
}

test('paths a client supplies stay inside the table: purge never deletes outside the warehouse', async (t) => {
  if (!requireFloe(t)) return;
  const dir = freshDir();
  const server = await startServe(dir);
  try {
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'precious');
    assert.equal((await call(server, 'POST', '/v1/namespaces', { namespace: ['db'] })).status, 200);
    const created = await call(server, 'POST', '/v1/namespaces/db/tables', { name: 't', schema });
    assert.equal(created.status, 200);
    const location = created.json.metadata.location;
    const escape = `${location}/../../../victim.txt`;
    assert.equal(path.resolve(escape), victim);
    const snapshot = (id, list) => ({
      action: 'add-snapshot',
      snapshot: { 'snapshot-id': id, 'sequence-number': id, 'timestamp-ms': Date.now(), 'manifest-list': list,
        summary: { operation: 'append' } },
    });
    const refused = await call(server, 'POST', '/v1/namespaces/db/tables/t', {
      requirements: [],
      updates: [snapshot(1, escape), { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 1 }],
    });
    assert.equal(refused.status, 400, JSON.stringify(refused.json));
    assert.match(refused.json.error.message, /manifest list of snapshot 1 .* '\.\.' path segment/);
    // Elsewhere in the warehouse, or outside it, is refused just the same.
    for (const list of [path.join(dir, 'wh', 'db', 'other', 'snap.avro'), victim]) {
      const r = await call(server, 'POST', '/v1/namespaces/db/tables/t', { updates: [snapshot(1, list)] });
      assert.equal(r.status, 400, list);
    }
    for (const where of [path.join(dir, 'wh'), path.join(dir, 'elsewhere'), `${location}/../../..`]) {
      const r = await call(server, 'POST', '/v1/namespaces/db/tables/t', {
        updates: [{ action: 'set-location', location: where }],
      });
      assert.equal(r.status, 400, `set-location ${where}`);
    }
    // A registered metadata file under the warehouse that names a manifest list outside it.
    const metadataFile = created.json['metadata-location'];
    const foreign = JSON.parse(fs.readFileSync(metadataFile, 'utf8'));
    foreign.location = path.join(dir, 'wh', 'db', 'reg');
    foreign['current-snapshot-id'] = 5;
    foreign['last-sequence-number'] = 1;
    foreign.snapshots = [{ 'snapshot-id': 5, 'sequence-number': 1, 'timestamp-ms': 1, 'manifest-list': victim,
      summary: { operation: 'append' } }];
    foreign.refs = { main: { 'snapshot-id': 5, type: 'branch' } };
    const registered = path.join(dir, 'wh', 'db', 'reg', 'metadata', '00000-x.metadata.json');
    fs.mkdirSync(path.dirname(registered), { recursive: true });
    fs.writeFileSync(registered, JSON.stringify(foreign));
    const register = await call(server, 'POST', '/v1/namespaces/db/register', { name: 'reg', 'metadata-location': registered });
    assert.equal(register.status, 400, JSON.stringify(register.json));
    // Whatever was refused, purging the table leaves the victim alone.
    for (const name of ['t', 'reg']) {
      await call(server, 'DELETE', `/v1/namespaces/db/tables/${name}?purgeRequested=true`);
    }
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious');
    assert.equal(fs.existsSync(metadataFile), false, 'the table\'s own metadata was purged');
  } finally {
    await server.stop();
  }
});

test('a chunked body is limited while it is read, and authentication comes before any body', async (t) => {
  if (!requireFloe(t)) return;
  const dir = freshDir();
  const server = await startServe(dir, ['--token', TOKEN, '--max-body-bytes', String(1 << 20)]);
  try {
    const head = (auth) => 'POST /v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      (auth ? `Authorization: Bearer ${TOKEN}\r\n` : '') + 'Transfer-Encoding: chunked\r\n\r\n';
    // 200 MiB in 1 MiB chunks, sent until the server answers.
    const answer = await new Promise((resolve) => {
      const socket = net.connect(server.port, '127.0.0.1');
      const chunk = Buffer.concat([Buffer.from('100000\r\n'), Buffer.alloc(1 << 20, 0x20), Buffer.from('\r\n')]);
      let received = '';
      let sent = 0;
      socket.on('error', () => {});
      socket.on('data', (d) => { received += d.toString('latin1'); });
      socket.on('close', () => resolve({ received, sent }));
      socket.on('connect', () => {
        socket.write(head(true));
        const pump = () => {
          while (sent < 200 && !received) {
            sent += 1;
            if (!socket.write(chunk)) {
              socket.once('drain', pump);
              return;
            }
          }
          if (received || sent >= 200) socket.end();
        };
        pump();
      });
      setTimeout(() => socket.destroy(), 60000);
    });
    assert.equal(statusOf(answer.received), 413, answer.received.slice(0, 300));
    assert.ok(answer.sent < 200, `the server read all ${answer.sent} MiB before answering`);
    const peak = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))[1]);
    assert.ok(peak < 150 * 1024, `floe serve peaked at ${peak} KiB for a 1 MiB body limit`);
    t.diagnostic(`413 after ${answer.sent} MiB sent; server peak RSS ${peak} KiB`);

    // Without a token: 401 from the head alone, while the client is still to send its body.
    const unauthenticated = await rawExchange(server.port, head(false), { timeoutMs: 3000 });
    assert.equal(statusOf(unauthenticated.text), 401, unauthenticated.text);
    assert.ok(unauthenticated.ms < 2000, `401 took ${unauthenticated.ms} ms`);
    // A Content-Length beyond the limit: 413 without reading it.
    const declared = await rawExchange(server.port, 'POST /v1/namespaces HTTP/1.1\r\nHost: x\r\n' +
      `Authorization: Bearer ${TOKEN}\r\nContent-Length: 104857600\r\n\r\n`, { timeoutMs: 3000 });
    assert.equal(statusOf(declared.text), 413, declared.text);
    // Ambiguous framing is refused, never guessed.
    const smuggled = await rawExchange(server.port, 'POST /v1/namespaces HTTP/1.1\r\nHost: x\r\n' +
      `Authorization: Bearer ${TOKEN}\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    assert.equal(statusOf(smuggled.text), 400, smuggled.text);
    assert.equal(bodyOf(smuggled.text)?.error?.code, 400);
    const gzip = await rawExchange(server.port, 'POST /v1/namespaces HTTP/1.1\r\nHost: x\r\n' +
      `Authorization: Bearer ${TOKEN}\r\nTransfer-Encoding: gzip, chunked\r\n\r\n`);
    assert.equal(statusOf(gzip.text), 501, gzip.text);
  } finally {
    await server.stop();
  }
});

test('slow clients hold no worker; trickling heads are cut off; connections per client are capped', async (t) => {
  if (!requireFloe(t)) return;
  const dir = freshDir();
  const server = await startServe(dir, ['--header-timeout', '4', '--threads', '2', '--max-connections-per-client',
    '20']);
  const slow = [];
  try {
    // Twelve connections, each sending a byte of its request line every 3 s (what stalled the old server).
    for (let i = 0; i < 12; i++) {
      slow.push(rawExchange(server.port, [...'GET /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'], { timeoutMs: 15000,
        gapMs: 3000 }));
    }
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; i < 5; i++) {
      const start = Date.now();
      const r = await call(server, 'GET', '/v1/config');
      assert.equal(r.status, 200);
      assert.ok(Date.now() - start < 1500, `a normal request waited ${Date.now() - start} ms behind slow clients`);
    }
    const results = await Promise.all(slow);
    for (const r of results) {
      assert.ok(r.closed, 'the server closed a trickling connection');
      assert.equal(statusOf(r.text), 408, r.text);
      assert.ok(r.ms < 8000, `a trickling head was held ${r.ms} ms with --header-timeout 4`);
    }
  } finally {
    await server.stop();
  }

  const capped = await startServe(freshDir(), ['--max-connections-per-client', '3']);
  const idle = [];
  try {
    for (let i = 0; i < 3; i++) {
      idle.push(await new Promise((resolve) => {
        const s = net.connect(capped.port, '127.0.0.1', () => resolve(s));
        s.on('error', () => {});
      }));
    }
    await new Promise((r) => setTimeout(r, 200));
    const fourth = await rawExchange(capped.port, 'GET /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    assert.equal(statusOf(fourth.text), 503, fourth.text);
    assert.match(bodyOf(fourth.text)?.error?.message ?? '', /too many connections from 127\.0\.0\.1/);
    idle[0].destroy();
    await new Promise((r) => setTimeout(r, 200));
    const again = await rawExchange(capped.port, 'GET /v1/config HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    assert.equal(statusOf(again.text), 200, again.text);
  } finally {
    for (const s of idle) s.destroy();
    await capped.stop();
  }
});

test('browsers: Host, Origin and CORS are checked; a web page cannot change the catalog', async (t) => {
  if (!requireFloe(t)) return;
  const dir = freshDir();
  const server = await startServe(dir, ['--cors-origin', 'http://app.example']);
  try {
    const evil = { Origin: 'http://evil.example' };
    const textPlain = { 'Content-Type': 'text/plain' };
    let r = await call(server, 'POST', '/v1/namespaces', { namespace: ['a'] }, { ...evil, ...textPlain });
    assert.equal(r.status, 403, JSON.stringify(r.json));
    r = await call(server, 'POST', '/v1/namespaces', { namespace: ['b'] }, textPlain);
    assert.equal(r.status, 400, 'a text/plain POST (what a form or no-cors fetch sends) is refused');
    const rebound = await rawExchange(server.port, `GET /v1/namespaces HTTP/1.1\r\nHost: evil.example:${server.port}\r\n` +
      'Connection: close\r\n\r\n');
    assert.equal(statusOf(rebound.text), 400, rebound.text);
    const dropped = await rawExchange(server.port, 'DELETE /v1/namespaces/x HTTP/1.1\r\nHost: rebind.example\r\n' +
      'Connection: close\r\n\r\n');
    assert.equal(statusOf(dropped.text), 400, dropped.text);
    // Preflights: answered for the allowed origin, refused for others.
    const preflight = (origin) => fetch(`${server.baseUrl}/v1/namespaces`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type' },
    });
    const allowed = await preflight('http://app.example');
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'http://app.example');
    assert.match(allowed.headers.get('access-control-allow-methods'), /POST/);
    assert.match(allowed.headers.get('access-control-allow-headers'), /authorization/);
    assert.equal((await preflight('http://evil.example')).status, 403);
    const plainOptions = await fetch(`${server.baseUrl}/v1/namespaces`, { method: 'OPTIONS' });
    assert.equal(plainOptions.status, 204);
    assert.match(plainOptions.headers.get('allow'), /GET/);
    r = await call(server, 'POST', '/v1/namespaces', { namespace: ['app'] }, { Origin: 'http://app.example' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), 'http://app.example');
  } finally {
    await server.stop();
  }
});

test('a page in a real browser cannot create a namespace (cross-origin, and through a rebound name)', async (t) => {
  if (!requireFloe(t)) return;
  if (!fs.existsSync(CHROMIUM)) {
    t.skip(`skipped: ${CHROMIUM} is not installed (Debian package chromium)`);
    return;
  }
  const dir = freshDir();
  const server = await startServe(dir);
  // The attacker's page, on another port; evil.test resolves to 127.0.0.1 in the browser (DNS rebinding).
  const page = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<html><body><script>
      const targets = ${JSON.stringify([`http://127.0.0.1:${server.port}`, `http://evil.test:${server.port}`])};
      Promise.all(targets.map((base, i) => fetch(base + '/v1/namespaces', { method: 'POST', mode: 'no-cors',
        headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ namespace: ['pwned' + i] }) })
        .catch(() => null))).then(() => document.body.setAttribute('data-done', 'yes'));
    </script></body></html>`);
  });
  await new Promise((resolve) => page.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://evil.test:${page.address().port}/`;
    const dom = await new Promise((resolve) => {
      const browser = spawn(CHROMIUM, ['--headless=new', '--no-sandbox', '--disable-gpu',
        '--host-resolver-rules=MAP evil.test 127.0.0.1', '--virtual-time-budget=5000', '--dump-dom', url],
      { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      browser.stdout.on('data', (d) => { out += d; });
      const timer = setTimeout(() => browser.kill('SIGKILL'), 60000);
      browser.on('exit', () => {
        clearTimeout(timer);
        resolve(out);
      });
    });
    assert.match(dom, /data-done="yes"/, 'the page ran its requests');
    for (const name of ['pwned0', 'pwned1']) {
      const r = await call(server, 'GET', `/v1/namespaces/${name}`);
      assert.equal(r.status, 404, `the page created namespace ${name}`);
    }
  } finally {
    page.close();
    await server.stop();
  }
});

test('tokens: short ones and look-alike loopback names are refused at start; issued tokens work', async (t) => {
  if (!requireFloe(t)) return;
  const short = await serveRefuses(freshDir(), ['--listen', '127.0.0.1:0', '--token', 'short']);
  assert.equal(short.code, 1, short.stderr);
  assert.match(short.stderr, /at least 16/);
  const lookalike = await serveRefuses(freshDir(), ['--listen', '127.0.0.1.example:0']);
  assert.equal(lookalike.code, 1, lookalike.stderr);
  assert.match(lookalike.stderr, /refusing to listen on 127\.0\.0\.1\.example without authentication/);
  const secret = 'client-secret-0123456789';
  const server = await startServe(freshDir(), ['--client-credentials', `ingest:${secret}`]);
  try {
    const form = (id, s) => fetch(`${server.baseUrl}/v1/oauth/tokens`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${id}&client_secret=${s}`,
    });
    const issued = await (await form('ingest', secret)).json();
    assert.equal(issued.token_type, 'bearer');
    assert.equal((await form('ingest', 'wrong-secret-0123456789')).status, 401);
    assert.equal((await form('other', secret)).status, 401);
    const ok = await call(server, 'GET', '/v1/namespaces', undefined, { Authorization: `Bearer ${issued.access_token}` });
    assert.equal(ok.status, 200);
    // One character changed (to one it is not: the token may already end in '0').
    const last = issued.access_token.slice(-1);
    const altered = `${issued.access_token.slice(0, -1)}${last === '0' ? '1' : '0'}`;
    const wrong = await call(server, 'GET', '/v1/namespaces', undefined, { Authorization: `Bearer ${altered}` });
    assert.equal(wrong.status, 401);
  } finally {
    await server.stop();
  }
});

test('names: a dot inside a name is refused by floe serve and by floe run', async (t) => {
  if (!requireFloe(t)) return;
  const server = await startServe(freshDir());
  try {
    let r = await call(server, 'POST', '/v1/namespaces', { namespace: ['a.b'] });
    assert.equal(r.status, 400, JSON.stringify(r.json));
    assert.match(r.json.error.message, /contains '\.'/);
    assert.equal((await call(server, 'POST', '/v1/namespaces', { namespace: ['a', 'b'] })).status, 200);
    r = await call(server, 'POST', '/v1/namespaces/a%1Fb/tables', { name: 'x.y', schema });
    assert.equal(r.status, 400);
    assert.equal((await call(server, 'POST', '/v1/namespaces/a%1Fb/tables', { name: 'xy', schema })).status, 200);
    r = await call(server, 'POST', '/v1/tables/rename', { source: { namespace: ['a', 'b'], name: 'xy' },
      destination: { namespace: ['a'], name: 'b.xy' } });
    assert.equal(r.status, 400);
    const listed = await call(server, 'GET', '/v1/namespaces');
    assert.deepEqual(listed.json.namespaces, [['a']]);
  } finally {
    await server.stop();
  }

  // A CDA table whose name holds a dot: floe run stops on it with the rule, the other table is ingested.
  const dir = freshDir();
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '3', '--rows', '100', '--tables', '2', '--folders', '2',
    '--no-uncommitted-folder']);
  const manifestPath = path.join(exportDir, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const [renamed] = Object.keys(manifest).sort();
  const dotted = `${renamed.slice(0, 2)}.${renamed.slice(2)}`;
  manifest[dotted] = { ...manifest[renamed], dataFilesPath: manifest[renamed].dataFilesPath.replace(renamed, dotted) };
  delete manifest[renamed];
  fs.renameSync(path.join(exportDir, renamed), path.join(exportDir, dotted));
  fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
  const config = writePipelineConfig(dir, exportDir, { name: 'names' });
  const run = runFloe(['run', config, '--once']);
  const output = run.stdout + run.stderr;
  assert.notEqual(run.status, 0, output);
  assert.match(output, new RegExp(`table name '${dotted.toLowerCase().replace('.', '\\.')}' contains '\\.'`));
}, { timeout: 120000 });
