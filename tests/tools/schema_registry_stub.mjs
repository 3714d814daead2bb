// A Confluent Schema Registry stub for floe's tests: the part of the
// registry's REST API that serializers and floe use, in memory.
//
//   POST /subjects/{subject}/versions  {"schema": "...", "schemaType"?: "AVRO", "references"?: [...]}
//        -> {"id": N}; the same schema text (any subject) keeps its id, as the real registry does
//   GET  /schemas/ids/{id}             -> {"schema": "..."} (+ "schemaType" when not AVRO, + "references")
//   GET  /subjects                     -> ["subject", ...]
//   GET  /subjects/{subject}/versions  -> [1, 2, ...]
//   GET  /subjects/{subject}/versions/{version|latest} -> {"subject", "version", "id", "schema"}
// Errors answer like the registry: 404 {"error_code": 40401 (subject) | 40402 (version) |
// 40403 (schema), "message": ...}; with a required user, 401 {"error_code": 401, ...}.
//
// Test controls (not in the real registry):
//   POST /__stub/faults {"status": 503, "count": 2, "delay_ms": 0} -> the next `count` requests
//        (other than /__stub) answer `status` (or, with status 0, hang up), after `delay_ms`
//   GET  /__stub/requests -> {"GET /schemas/ids/1": 3, ...}, the requests served so far
//
// As a program: node schema_registry_stub.mjs [--user name:password] [--schemas file.json] [--port N]
// (file: [{"subject": ..., "schema": ..., "schemaType"?: ...}, ...], registered in order) binds
// 127.0.0.1 on a free port, prints "ready <port>" and exits when stdin closes or on SIGTERM.
// As a module: startSchemaRegistryStub({user, port}) -> {url, port, register(subject, schema, type), close()}.
import http from 'node:http';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const kContentType = 'application/vnd.schemaregistry.v1+json';

export async function startSchemaRegistryStub({ user, port: wantedPort = 0 } = {}) {
  const schemas = [];  // id - 1 -> {schema, schemaType, references}
  const subjects = new Map();  // subject -> [id of version 1, id of version 2, ...]
  const requests = {};
  let faults = { status: 0, count: 0, delay_ms: 0 };

  const idOf = (schema, schemaType, references) => {
    const key = JSON.stringify([schema, schemaType, references]);
    const found = schemas.findIndex((s) => s.key === key);
    if (found >= 0) return found + 1;
    schemas.push({ key, schema, schemaType, references });
    return schemas.length;
  };
  const register = (subject, schema, schemaType = 'AVRO', references = []) => {
    const id = idOf(schema, schemaType, references);
    const versions = subjects.get(subject) ?? [];
    if (!versions.includes(id)) versions.push(id);
    subjects.set(subject, versions);
    return id;
  };

  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => serve(req, res, body));
  });

  const reply = (res, status, value) => {
    res.writeHead(status, { 'Content-Type': kContentType });
    res.end(JSON.stringify(value));
  };
  const notFound = (res, code, message) => reply(res, 404, { error_code: code, message });

  const serve = async (req, res, body) => {
    const url = new URL(req.url, 'http://stub');
    const path = decodeURIComponent(url.pathname);
    if (path === '/__stub/faults' && req.method === 'POST') {
      faults = { status: 503, count: 1, delay_ms: 0, ...JSON.parse(body || '{}') };
      return reply(res, 200, faults);
    }
    if (path === '/__stub/requests') return reply(res, 200, requests);
    const name = `${req.method} ${path}`;
    requests[name] = (requests[name] ?? 0) + 1;
    if (faults.count > 0) {
      faults.count -= 1;
      if (faults.delay_ms > 0) await new Promise((r) => setTimeout(r, faults.delay_ms));
      if (faults.status === 0) return req.socket.destroy();
      return reply(res, faults.status, { error_code: faults.status * 100, message: 'injected by the stub' });
    }
    if (user) {
      const expected = `Basic ${Buffer.from(user).toString('base64')}`;
      if (req.headers.authorization !== expected) {
        return reply(res, 401, { error_code: 401, message: 'Unauthorized' });
      }
    }
    let m;
    if (req.method === 'GET' && (m = path.match(/^\/schemas\/ids\/(-?\d+)$/))) {
      const entry = schemas[Number(m[1]) - 1];
      if (!entry) return notFound(res, 40403, `Schema ${m[1]} not found`);
      const out = { schema: entry.schema };
      if (entry.schemaType !== 'AVRO') out.schemaType = entry.schemaType;
      if (entry.references.length > 0) out.references = entry.references;
      return reply(res, 200, out);
    }
    if (req.method === 'GET' && path === '/subjects') return reply(res, 200, [...subjects.keys()]);
    if ((m = path.match(/^\/subjects\/([^/]+)\/versions$/))) {
      if (req.method === 'POST') {
        let parsed;
        try {
          parsed = JSON.parse(body);
        } catch {
          return reply(res, 422, { error_code: 42201, message: 'Invalid schema' });
        }
        if (typeof parsed.schema !== 'string') return reply(res, 422, { error_code: 42201, message: 'Invalid schema' });
        return reply(res, 200, { id: register(m[1], parsed.schema, parsed.schemaType ?? 'AVRO', parsed.references ?? []) });
      }
      const versions = subjects.get(m[1]);
      if (!versions) return notFound(res, 40401, `Subject '${m[1]}' not found.`);
      return reply(res, 200, versions.map((_, i) => i + 1));
    }
    if (req.method === 'GET' && (m = path.match(/^\/subjects\/([^/]+)\/versions\/(latest|\d+)$/))) {
      const versions = subjects.get(m[1]);
      if (!versions) return notFound(res, 40401, `Subject '${m[1]}' not found.`);
      const version = m[2] === 'latest' ? versions.length : Number(m[2]);
      const id = versions[version - 1];
      if (!id) return notFound(res, 40402, `Version ${m[2]} not found.`);
      return reply(res, 200, { subject: m[1], version, id, schema: schemas[id - 1].schema });
    }
    return notFound(res, 404, `no route ${name}`);
  };

  await new Promise((resolve) => server.listen(wantedPort, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    register,
    close: () => new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const stub = await startSchemaRegistryStub({ user: option('--user'), port: Number(option('--port') ?? 0) });
  const file = option('--schemas');
  if (file) {
    for (const s of JSON.parse(fs.readFileSync(file, 'utf8'))) stub.register(s.subject, s.schema, s.schemaType);
  }
  process.stdout.write(`ready ${stub.port}\n`);
  const stop = async () => {
    await stub.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}
