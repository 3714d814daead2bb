// Starts `floe serve` for the REST tests and speaks raw HTTP to it.
//
// startServe(dir, args) runs `floe serve` over a SQLite catalog in `dir`
// (warehouse dir/wh) on a free loopback port with the extra `args`, and
// resolves once it prints its address: { child, port, baseUrl, stop(),
// stderr(), rssKiB() }. stop() sends SIGTERM and resolves with the exit
// { code, signal }. rawExchange sends bytes on a fresh socket and collects
// what comes back until the server closes or `timeoutMs` passes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export function startServe(dir, args = [], { floe = process.env.FLOE_BIN } = {}) {
  const child = spawn(floe, ['serve', '--catalog', `sqlite://${path.join(dir, 'catalog.db')}`, '--warehouse',
    path.join(dir, 'wh'), '--listen', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const port = new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`floe serve did not start: ${stderr}`)), 20000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/listening on 127\.0\.0\.1:(\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`floe serve exited early (${code}): ${stderr}`));
    });
  });
  return port.then((p) => ({
    child,
    port: p,
    baseUrl: `http://127.0.0.1:${p}`,
    stderr: () => stderr,
    rssKiB: () => {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    },
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  }));
}

// Runs `floe serve` expecting it to refuse to start; resolves with { code, stderr }.
export function serveRefuses(dir, args, { floe = process.env.FLOE_BIN } = {}) {
  return new Promise((resolve) => {
    const child = spawn(floe, ['serve', '--catalog', `sqlite://${path.join(dir, 'catalog.db')}`, '--warehouse',
      path.join(dir, 'wh'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

// Sends `bytes` (a string or Buffer, or an array of them written with `gapMs` between) and
// returns { text, closed, ms }: everything received until the server closed or `timeoutMs`.
export function rawExchange(port, bytes, { timeoutMs = 5000, gapMs = 0 } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closed, ms: Date.now() - started });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('connect', async () => {
      const parts = Array.isArray(bytes) ? bytes : [bytes];
      for (const part of parts) {
        if (socket.destroyed) return;
        socket.write(part);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
  });
}

// The status code of the first response in raw HTTP text (0 when none).
export function statusOf(text) {
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
}

// The JSON body of a raw HTTP response (Content-Length framing), or null.
export function bodyOf(text) {
  const at = text.indexOf('\r\n\r\n');
  if (at < 0) return null;
  try {
    return JSON.parse(text.slice(at + 4));
  } catch {
    return null;
  }
}
