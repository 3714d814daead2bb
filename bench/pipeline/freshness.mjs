// Freshness of the continuous pipeline (bench/pipeline/run.sh step d): runs
// `floe run CONFIG` (its [trigger] interval sets the poll) in the background
// over an export it has already ingested, then N times lands one new
// committed folder per table (`floe demo generate EXPORT --append-round R
// --append-folders 1`, which advances manifest.json last) and measures the
// time from the landing (the generator's exit) until each table's
// metadata_location in the SQLite catalog changes, i.e. the new snapshot is
// visible to readers. Afterwards the idle daemon's CPU use (over IDLE_S
// seconds) and resident memory are read from /proc.
//   node freshness.mjs FLOE CONFIG EXPORT_DIR CATALOG_DB N FIRST_ROUND [IDLE_S]
// Prints one JSON object (milliseconds). Polling costs ~5 ms of CPU each 50 ms
// (a sqlite3 process), so latencies have a 50 ms resolution.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [floe, config, exportDir, catalogDb, nArg, firstRoundArg, idleArg] = process.argv.slice(2);
if (!floe || !config || !exportDir || !catalogDb || !nArg || !firstRoundArg) {
  console.error('usage: node freshness.mjs FLOE CONFIG EXPORT_DIR CATALOG_DB N FIRST_ROUND [IDLE_S]');
  process.exit(2);
}
const landings = Number(nArg);
const firstRound = Number(firstRoundArg);
const idleSeconds = Number(idleArg ?? 10);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const pollMs = 50;

// table name -> metadata_location, as a reader of the catalog sees it.
function catalogState() {
  const r = spawnSync('sqlite3', ['-readonly', catalogDb, 'SELECT table_name, metadata_location FROM iceberg_tables'], {
    encoding: 'utf8',
  });
  if (r.status !== 0) return null;  // busy while a commit holds the write lock: poll again
  return new Map(r.stdout.trim().split('\n').filter(Boolean).map((line) => line.split('|')));
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function procCpuTicksAndRss(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);  // utime + stime
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  return { ticks, rssBytes: rssKb * 1024 };
}

const daemon = spawn(floe, ['run', config, '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] });
let daemonLog = '';
daemon.stderr.on('data', (d) => (daemonLog += d));
let exited = false;
daemon.on('exit', () => (exited = true));
await sleep(3000);  // its first run finds nothing new

const first = [];  // per landing: ms until the first table's new snapshot is visible
const all = [];  // ms until every table's is
for (let i = 0; i < landings; i++) {
  if (exited) throw new Error(`floe run exited early:\n${daemonLog}`);
  let before = catalogState();
  while (before === null) before = catalogState();
  const gen = spawnSync(floe, ['demo', 'generate', exportDir, '--append-round', String(firstRound + i), '--append-folders', '1'], {
    encoding: 'utf8',
  });
  if (gen.status !== 0) throw new Error(`floe demo generate failed:\n${gen.stderr}`);
  const landed = performance.now();
  const seen = new Map();
  while (seen.size < before.size) {
    if (performance.now() - landed > 120_000) throw new Error(`no snapshot 120 s after landing ${i}:\n${daemonLog}`);
    await sleep(pollMs);
    const now = catalogState();
    if (now === null) continue;
    const t = performance.now() - landed;
    for (const [table, location] of now) {
      if (!seen.has(table) && location !== before.get(table)) seen.set(table, t);
    }
  }
  const times = [...seen.values()];
  first.push(Math.min(...times));
  all.push(Math.max(...times));
  await sleep(Math.random() * 1000);  // land at a random phase of the poll interval
}

await sleep(3000);
const a = procCpuTicksAndRss(daemon.pid);
await sleep(idleSeconds * 1000);
const b = procCpuTicksAndRss(daemon.pid);
const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
daemon.kill('SIGTERM');
while (!exited) await sleep(50);

const summary = (values) => ({
  p50: percentile(values, 50),
  p99: percentile(values, 99),
  max: Math.max(...values),
});
console.log(
  JSON.stringify({
    landings,
    poll_resolution_ms: pollMs,
    first_table_ms: summary(first),
    all_tables_ms: summary(all),
    idle_cpu_percent: ((b.ticks - a.ticks) / ticksPerSecond / idleSeconds) * 100,
    idle_rss_bytes: b.rssBytes,
  }),
);
