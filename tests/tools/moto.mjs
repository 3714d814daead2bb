// Starts moto's server (the Python package moto: local S3, SQS, SNS,
// EventBridge, Kinesis and Glue Data Catalog APIs) on 127.0.0.1 and a free
// port, for floe's AWS tests.
//
// As a program: node moto.mjs [<log file>]
//   prints "ready <port>" once moto answers, or "missing <reason>" and exits
//   with status 3 when moto_server is not installed (tests then skip and say
//   so). moto is stopped when stdin closes or on SIGTERM, so a test that dies
//   leaves no server behind.
// As a module: const moto = await startMoto(); -> {port, url, stop()} or
//   {missing: "<reason>"}; startAwsDriver(moto.url) keeps one boto3 process
//   (tests/tools/aws_driver.py --serve) for many commands:
//   `await driver.call({command: ...})` -> its result (rejects with boto3's
//   error), `driver.stop()`.
// moto does not verify SigV4 signatures and does not enforce Glue's
// VersionId; the tests that need those check them elsewhere.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export function motoMissingReason() {
  const which = spawnSync('sh', ['-c', 'command -v moto_server'], { encoding: 'utf8' });
  if (which.status !== 0 || !which.stdout.trim()) {
    return 'moto_server is not installed (pip install "moto[server]" boto3 to run the AWS tests)';
  }
  return '';
}

async function answers(port) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/moto-api/data.json`);
    return response.status < 500;
  } catch {
    return false;
  }
}

export async function startMoto({ log } = {}) {
  const missing = motoMissingReason();
  if (missing) return { missing };
  for (let attempt = 0; attempt < 3; ++attempt) {
    const port = await freePort();
    const out = log ? fs.openSync(log, 'a') : 'ignore';
    const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
      stdio: ['ignore', out, out],
      detached: false,
    });
    let exited = false;
    child.on('exit', () => {
      exited = true;
    });
    const deadline = Date.now() + 60000;
    while (!exited && Date.now() < deadline) {
      if (await answers(port)) {
        const stop = () =>
          new Promise((resolve) => {
            if (exited) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 3000).unref();
          });
        return { port, url: `http://127.0.0.1:${port}`, stop, child };
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    if (!exited) child.kill('SIGKILL');
    // The port may have been taken between the probe and moto's bind: try another.
  }
  throw new Error('moto_server did not come up on 127.0.0.1 (see its log)');
}

export function startAwsDriver(url) {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'aws_driver.py');
  const child = spawn('python3', [script, url, '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = [];
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const { resolve, reject, command } = waiting.shift();
      const answer = JSON.parse(line);
      if ('error' in answer) reject(new Error(`aws_driver.py ${command}: ${answer.error}`));
      else resolve(answer.result);
    }
  });
  child.on('exit', () => {
    for (const { reject, command } of waiting.splice(0)) reject(new Error(`aws_driver.py exited during ${command}`));
  });
  return {
    call(command) {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject, command: command.command });
        child.stdin.write(JSON.stringify(command) + '\n');
      });
    },
    stop() {
      child.stdin.end();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const moto = await startMoto({ log: process.argv[2] });
  if (moto.missing) {
    process.stdout.write(`missing ${moto.missing}\n`);
    process.exit(3);
  }
  process.stdout.write(`ready ${moto.port}\n`);
  let stopping = false;
  const stop = async () => {
    stopping = true;
    await moto.stop();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
  moto.child.on('exit', () => {
    if (!stopping) process.exit(1);
  });
}
