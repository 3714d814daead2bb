// What serving metrics costs an idle daemon: `floe run --http` over a CDA
// export that is fully ingested (so the daemon only polls), CPU time of the
// process (utime + stime from /proc/<pid>/stat) over a window without
// scrapes and over the same window with GET /metrics (and /api/status every
// 5th second, as the dashboard does) once per second. Prints both, the
// difference per scrape and the share of one core. Interleaved windows, so
// load from other work on the machine hits both alike.
//
// Usage: node bench/observability/scrape_cost.mjs [SECONDS=60] [ROUNDS=2]
// Env: FLOE_BIN (default build/floe).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FLOE = process.env.FLOE_BIN ?? path.resolve('build/floe');
const seconds = Number(process.argv[2] ?? 60);
const rounds = Number(process.argv[3] ?? 2);
const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticks;  // utime + stime
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-scrape-cost-'));
const run = (args) => {
  const result = spawnSync(FLOE, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`floe ${args.join(' ')}: ${result.stderr}`);
};
run(['demo', 'generate', path.join(dir, 'export'), '--seed', '3', '--rows', '20000', '--tables', '3', '--folders', '10',
  '--no-uncommitted-folder']);
const config = path.join(dir, 'pipeline.toml');
fs.writeFileSync(config, `name = "idle"
[source]
uri = "${path.join(dir, 'export')}"
[catalog]
uri = "sqlite://${path.join(dir, 'catalog.db')}"
warehouse = "${path.join(dir, 'warehouse')}"
[state]
dir = "${path.join(dir, 'state')}"
[trigger]
interval = "1s"
`);
run(['run', config, '--once', '--quiet']);

const child = spawn(FLOE, ['run', config, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
let log = '';
const base = await new Promise((resolve, reject) => {
  child.stderr.on('data', (chunk) => {
    log += chunk;
    const match = log.match(/dashboard at (http:\/\/[^/\s]+)\//);
    if (match) resolve(match[1]);
  });
  child.on('exit', () => reject(new Error(log)));
});
await sleep(3000);  // past start-up

async function window(scrape) {
  const start = cpuSeconds(child.pid);
  let bytes = 0;
  for (let i = 0; i < seconds; ++i) {
    const tick = Date.now();
    if (scrape) {
      bytes += (await (await fetch(`${base}/metrics`)).text()).length;
      if (i % 5 === 0) await (await fetch(`${base}/api/status`)).text();
    }
    await sleep(Math.max(0, 1000 - (Date.now() - tick)));
  }
  return { cpu: cpuSeconds(child.pid) - start, bytes };
}

const results = { idle: [], scraped: [] };
for (let round = 0; round < rounds; ++round) {
  results.idle.push((await window(false)).cpu);
  const scraped = await window(true);
  results.scraped.push(scraped.cpu);
  if (round === 0) console.log(`/metrics body: ${Math.round(scraped.bytes / seconds)} bytes`);
}
child.kill('SIGTERM');
await new Promise((resolve) => child.on('exit', resolve));
fs.rmSync(dir, { recursive: true, force: true });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const idle = median(results.idle);
const scraped = median(results.scraped);
console.log(`load average ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`);
console.log(`idle daemon, ${seconds} s windows x ${rounds}: CPU without scrapes ${results.idle.map((v) => v.toFixed(3)).join(', ')} s; ` +
  `with a scrape a second (+ /api/status every 5 s) ${results.scraped.map((v) => v.toFixed(3)).join(', ')} s`);
console.log(`scraping adds ${((scraped - idle) * 1000 / seconds).toFixed(2)} ms CPU per second = ` +
  `${((scraped - idle) / seconds * 100).toFixed(3)}% of one core (idle daemon itself: ${(idle / seconds * 100).toFixed(3)}%)`);
