// A fault-injecting HTTP proxy in front of a local S3 server, for floe's S3
// retry tests; it also verifies SigV4 signatures, which s3rver does not.
//
// Usage: node fault_proxy.mjs <upstream-port> [<secret-access-key>]
// Listens on 127.0.0.1 (free port), prints "ready <port>", exits when stdin
// closes. Control endpoints (not forwarded):
//   POST /__proxy/faults   body: JSON array of faults, queued in order; each
//                          proxied request takes the first queued fault whose
//                          method matches ("GET:truncate"), whose AWS JSON
//                          operation matches its X-Amz-Target
//                          ("AmazonSQS.DeleteMessageBatch:stall"), or that has
//                          neither ("500").
//   GET  /__proxy/stats    {requests, maxConcurrent, signatureFailures, queued, log:[...]}
//   POST /__proxy/random   body: {"fault": "throttle", "rate": 0.2, "seed": 7}: besides
//                          the queue, each proxied request takes that fault with
//                          probability `rate` (seeded; rate 0 turns it off).
//   POST /__proxy/reset    clears the queue, the random fault, counters and log.
// Faults: 500, 503 (ServiceUnavailable), slowdown (503 SlowDown), 429, 403 (AccessDenied),
//   412 (PreconditionFailed: AWS's answer to If-None-Match: * on an existing key),
//   drop (close the connection without an answer), drop-after (forward, then
//   close without an answer), stall (never answer; closes after 60 s),
//   truncate (forward, send the headers and half the body, close),
//   nosuchupload (404 NoSuchUpload, what AWS answers a retried, already
//   completed CompleteMultipartUpload; s3rver answers 500 there),
//   throttle (400 ProvisionedThroughputExceededException in the AWS JSON
//   protocol, what Kinesis answers a shard read or written too fast), ok.
// With a secret, every signed request is checked: canonical request rebuilt
// from the wire (path and query decoded, then re-encoded the SigV4 way),
// payload hash compared with the body; a mismatch answers 403 SignatureDoesNotMatch.
import http from 'node:http';
import crypto from 'node:crypto';

const upstreamPort = Number(process.argv[2]);
const secret = process.argv[3];
if (!upstreamPort) {
  console.error('usage: fault_proxy.mjs <upstream-port> [<secret>]');
  process.exit(2);
}

let queue = [];
let stats = { requests: 0, maxConcurrent: 0, signatureFailures: 0, log: [] };
// A seeded random fault (mulberry32), taken with probability `rate`.
let random = { fault: null, rate: 0, state: 1 };
function randomFault() {
  if (!random.fault || random.rate <= 0) return null;
  random.state = (random.state + 0x6d2b79f5) | 0;
  let t = random.state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  const draw = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  return draw < random.rate ? random.fault : null;
}
let inFlight = 0;
const agent = new http.Agent({ keepAlive: true });

const awsEncode = (s) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
const sha256 = (data) => crypto.createHash('sha256').update(data).digest('hex');
const hmac = (key, data) => crypto.createHmac('sha256', key).update(data).digest();

function verifySignature(req, body) {
  const auth = req.headers['authorization'];
  if (!auth) return 'unsigned request';
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return 'malformed Authorization';
  const [, , date, region, service, signedHeaders, signature] = m;
  const payloadHash = req.headers['x-amz-content-sha256'];
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(body)) return 'payload hash mismatch';
  const [rawPath, rawQuery = ''] = req.url.split(/\?(.*)/s);
  const path = rawPath.split('/').map((seg) => awsEncode(decodeURIComponent(seg))).join('/');
  const query = rawQuery
    .split('&')
    .filter((p) => p.length > 0)
    .map((p) => {
      const [k, v = ''] = p.split(/=(.*)/s);
      return [awsEncode(decodeURIComponent(k)), awsEncode(decodeURIComponent(v))];
    })
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const names = signedHeaders.split(';');
  for (const required of ['host', 'x-amz-date', 'x-amz-content-sha256']) {
    if (!names.includes(required)) return `${required} is not signed`;
  }
  if (req.headers['x-amz-security-token'] && !names.includes('x-amz-security-token')) {
    return 'x-amz-security-token is sent but not signed';
  }
  const canonicalHeaders = names
    .map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const creq = [req.method, path, query, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const sts = ['AWS4-HMAC-SHA256', req.headers['x-amz-date'], scope, sha256(creq)].join('\n');
  let key = hmac('AWS4' + secret, date);
  key = hmac(key, region);
  key = hmac(key, service);
  key = hmac(key, 'aws4_request');
  const expected = hmac(key, sts).toString('hex');
  return expected === signature ? null : `signature mismatch; canonical request was:\n${creq}`;
}

function errorXml(code, message) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
}

function takeFault(method, target) {
  const i = queue.findIndex(
    (f) => !f.includes(':') || f.startsWith(method + ':') || (target && f.startsWith(target + ':')),
  );
  if (i < 0) return randomFault() ?? 'ok';
  const [fault] = queue.splice(i, 1);
  return fault.includes(':') ? fault.split(':')[1] : fault;
}

function forward(req, body, onResponse) {
  const upstream = http.request(
    { host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers, agent },
    (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => onResponse(res, Buffer.concat(chunks)));
    },
  );
  upstream.on('error', (e) => onResponse(null, Buffer.from(String(e))));
  upstream.end(body);
}

function control(req, res, body) {
  if (req.method === 'POST' && req.url === '/__proxy/faults') {
    queue.push(...JSON.parse(body.toString() || '[]'));
  } else if (req.method === 'POST' && req.url === '/__proxy/random') {
    const { fault = null, rate = 0, seed = 1 } = JSON.parse(body.toString() || '{}');
    random = { fault, rate, state: seed | 0 };
  } else if (req.method === 'POST' && req.url === '/__proxy/reset') {
    queue = [];
    random = { fault: null, rate: 0, state: 1 };
    stats = { requests: 0, maxConcurrent: 0, signatureFailures: 0, log: [] };
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ ...stats, queued: queue.length }));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.url.startsWith('/__proxy/')) return control(req, res, body);
    stats.requests++;
    inFlight++;
    stats.maxConcurrent = Math.max(stats.maxConcurrent, inFlight);
    let done = false;
    const finish = () => {
      if (!done) inFlight--;
      done = true;
    };
    res.on('close', finish);
    const target = req.headers['x-amz-target'] ?? '';
    const fault = takeFault(req.method, target);
    const signed = /SignedHeaders=([^,]+)/.exec(req.headers['authorization'] ?? '');
    stats.log.push({ method: req.method, url: req.url, target, fault, signedHeaders: signed ? signed[1] : '' });
    if (stats.log.length > 10000) stats.log.shift();
    if (secret) {
      const problem = verifySignature(req, body);
      if (problem) {
        stats.signatureFailures++;
        stats.log[stats.log.length - 1].signature = problem;
        res.writeHead(403, { 'content-type': 'application/xml' });
        return res.end(errorXml('SignatureDoesNotMatch', problem.split('\n')[0]));
      }
    }
    const fail = (status, code) => {
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(errorXml(code, `injected ${code}`));
    };
    switch (fault) {
      case '500': return fail(500, 'InternalError');
      case '503': return fail(503, 'ServiceUnavailable');
      case 'slowdown': return fail(503, 'SlowDown');
      case '429': return fail(429, 'TooManyRequests');
      case '403': return fail(403, 'AccessDenied');
      case 'nosuchupload': return fail(404, 'NoSuchUpload');
      case 'throttle':
        stats.throttled = (stats.throttled ?? 0) + 1;
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
        return res.end(JSON.stringify({ __type: 'ProvisionedThroughputExceededException',
          message: 'Rate exceeded for shard (injected)' }));
      case '412': return fail(412, 'PreconditionFailed');
      case 'drop': return req.socket.destroy();
      case 'stall': {
        const timer = setTimeout(() => req.socket.destroy(), 60000);
        req.socket.on('close', () => clearTimeout(timer));
        return;
      }
      default: break;
    }
    forward(req, body, (up, upBody) => {
      if (!up) return fail(502, 'BadGateway');
      if (fault === 'drop-after') return req.socket.destroy();
      const headers = { ...up.headers };
      if (fault === 'truncate' && upBody.length > 1) {
        delete headers['transfer-encoding'];
        headers['content-length'] = String(upBody.length);
        res.writeHead(up.statusCode, headers);
        res.write(upBody.subarray(0, Math.floor(upBody.length / 2)));
        return setTimeout(() => req.socket.destroy(), 20);
      }
      if (fault === 'truncate') return req.socket.destroy();
      res.writeHead(up.statusCode, headers);
      res.end(upBody);
    });
  });
});

server.keepAliveTimeout = 30000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`ready ${server.address().port}\n`);
});
const stop = () => {
  server.closeAllConnections?.();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 500).unref();
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
