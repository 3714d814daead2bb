// Freshness of the continuous pipeline (bench/pipeline/run.sh step d): runs
// `floe run CONFIG` (its [trigger] interval sets the poll) in the background
// over an export it has already ingested, then N times lands one new
// committed folder per table (`floe demo generate EXPORT --append-round R
// --append-folders 1`, which advances manifest.json last) and measures the
// time from the landing (the generator's exit) until each table's
// metadata_location in the SQLite catalog names metadata holding a new ingest
// snapshot (a higher floe.batch-id than before the landing), i.e. the
// landing's data is visible to readers; a maintenance commit (compaction,
// manifest rewrite, expiry) also changes the location but does not count. Afterwards the idle daemon's CPU use (over IDLE_S
// seconds) and resident memory are read from /proc.
//   node freshness.mjs FLOE CONFIG EXPORT_DIR CATALOG_DB N FIRST_ROUND [IDLE_S]
// Prints one JSON object (milliseconds). Polling costs ~5 ms of CPU each 50 ms
// (a sqlite3 process), so latencies have a 50 ms resolution.
// The daemon runs with FLOE_PIPELINE_TRACE=<config dir>/freshness-trace.jsonl
// (src/ingest/pipeline_trace.h); each landing is matched with the poll that
// found it, its tables' batches, any maintenance that overlapped it (it runs
// on a background worker beside the loop) and any wait of a batch for a
// maintenance commit of its table (table_lock_wait), and written to
// <config dir>/freshness-landings.jsonl; the JSON gains "phases"
// (p50/p99/max of each phase), "slowest" (the 5 slowest landings, broken
// down) and "idle_poll" (the daemon's own CPU per idle poll, RSS and malloc
// figures, from the trace); a short breakdown also goes to stderr.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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

// The highest floe.batch-id among a metadata file's snapshots (-1: none); files are immutable, so cached.
const maxBatchByLocation = new Map();
function maxIngestBatch(location) {
  if (location === undefined) return -1;
  let max = maxBatchByLocation.get(location);
  if (max === undefined) {
    const metadata = JSON.parse(readFileSync(location.replace(/^file:\/\//, ''), 'utf8'));
    max = -1;
    for (const snapshot of metadata.snapshots ?? []) {
      const batch = snapshot.summary?.['floe.batch-id'];
      if (batch !== undefined) max = Math.max(max, Number(batch));
    }
    maxBatchByLocation.set(location, max);
  }
  return max;
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

const tracePath = join(dirname(config), 'freshness-trace.jsonl');
const landingsPath = join(dirname(config), 'freshness-landings.jsonl');
rmSync(tracePath, { force: true });
const epochNow = () => performance.timeOrigin + performance.now();
const daemon = spawn(floe, ['run', config, '--quiet'], {
  stdio: ['ignore', 'ignore', 'pipe'],
  env: { ...process.env, FLOE_PIPELINE_TRACE: tracePath },
});
let daemonLog = '';
daemon.stderr.on('data', (d) => (daemonLog += d));
let exited = false;
daemon.on('exit', () => (exited = true));
await sleep(3000);  // its first run finds nothing new

const first = [];  // per landing: ms until the first table's new snapshot is visible
const all = [];  // ms until every table's is
const landedAt = [];  // per landing: epoch ms of the landing
const seenAt = [];  // per landing: table -> ms after the landing its snapshot was seen
for (let i = 0; i < landings; i++) {
  if (exited) throw new Error(`floe run exited early:\n${daemonLog}`);
  let before = catalogState();
  while (before === null) before = catalogState();
  const gen = spawnSync(floe, ['demo', 'generate', exportDir, '--append-round', String(firstRound + i), '--append-folders', '1'], {
    encoding: 'utf8',
  });
  if (gen.status !== 0) throw new Error(`floe demo generate failed:\n${gen.stderr}`);
  const landed = performance.now();
  landedAt.push(performance.timeOrigin + landed);
  const seen = new Map();
  while (seen.size < before.size) {
    if (performance.now() - landed > 120_000) throw new Error(`no snapshot 120 s after landing ${i}:\n${daemonLog}`);
    await sleep(pollMs);
    const now = catalogState();
    if (now === null) continue;
    const t = performance.now() - landed;
    for (const [table, location] of now) {
      if (seen.has(table) || location === before.get(table)) continue;
      if (maxIngestBatch(location) > maxIngestBatch(before.get(table))) seen.set(table, t);
    }
  }
  const times = [...seen.values()];
  seenAt.push(Object.fromEntries(seen));
  first.push(Math.min(...times));
  all.push(Math.max(...times));
  await sleep(Math.random() * 1000);  // land at a random phase of the poll interval
}

await sleep(3000);
const a = procCpuTicksAndRss(daemon.pid);
const idleFrom = epochNow();
await sleep(idleSeconds * 1000);
const b = procCpuTicksAndRss(daemon.pid);
const idleTo = epochNow();
const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
daemon.kill('SIGTERM');
while (!exited) await sleep(50);

const summary = (values) => ({
  p50: percentile(values, 50),
  p99: percentile(values, 99),
  max: Math.max(...values),
});

// The daemon's trace, matched with the landings.
const trace = readFileSync(tracePath, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const events = (name) => trace.filter((e) => e.event === name);
const polls = events('poll');
const batches = events('batch');
const maintenance = events('maintenance');
const lockWaits = events('table_lock_wait');
const round = (x) => Math.round(x * 10) / 10;
const breakdown = [];
for (let i = 0; i < landedAt.length; i++) {
  const landed = landedAt[i];
  const end = landed + all[i];
  // The poll that found the landing: the first one recording new files after it.
  const poll = polls.find((p) => p.new_files > 0 && p.t > landed);
  const next = landedAt[i + 1] ?? Infinity;
  const own = poll ? batches.filter((e) => e.start >= poll.start && e.start < next) : [];
  const overlap = (e) => Math.max(0, Math.min(e.start + e.ms, end) - Math.max(e.start, landed));
  const maint = maintenance.filter((e) => overlap(e) > 0);
  const waits = lockWaits.filter((e) => overlap(e) > 0);
  breakdown.push({
    landing: i,
    all_ms: round(all[i]),
    first_ms: round(first[i]),
    seen_ms: Object.fromEntries(Object.entries(seenAt[i]).map(([k, v]) => [k, round(v)])),
    // landing -> start of the poll that found it (negative: the poll had started but read the manifest after)
    wait_for_poll_ms: poll ? round(poll.start - landed) : null,
    poll_ms: poll ? round(poll.t - poll.start) : null,
    discover_ms: poll ? round(poll.discover_ms) : null,
    batches: own.map((e) => ({
      table: e.table,
      start_ms: round(e.start - landed),
      ms: round(e.ms),
      rows: e.rows,
    })),
    // maintenance running between the landing and its last table becoming visible
    maintenance_ms: round(maint.reduce((sum, e) => sum + overlap(e), 0)),
    maintenance_tables: maint.map((e) => `${e.table} (${e.why}${e.background ? ', background' : ''}, ${Math.round(e.ms)} ms)`),
    // batches of this landing waiting for a maintenance commit of their table
    lock_wait_ms: round(waits.reduce((sum, e) => sum + overlap(e), 0)),
  });
}
writeFileSync(landingsPath, breakdown.map((b) => JSON.stringify(b)).join('\n') + '\n');
const phase = (pick) => {
  const values = breakdown.map(pick).filter((v) => v !== null && v !== undefined);
  return values.length ? { p50: round(percentile(values, 50)), p99: round(percentile(values, 99)), max: round(Math.max(...values)) } : null;
};
const phases = {
  wait_for_poll_ms: phase((b) => b.wait_for_poll_ms),
  poll_ms: phase((b) => b.poll_ms),
  batch_ms: phase((b) => (b.batches.length ? Math.max(...b.batches.map((x) => x.ms)) : null)),
  ingest_all_tables_ms: phase((b) =>
    b.batches.length ? Math.max(...b.batches.map((x) => x.start_ms + x.ms)) - Math.min(...b.batches.map((x) => x.start_ms)) : null,
  ),
  maintenance_overlap_ms: phase((b) => b.maintenance_ms),
  landings_with_maintenance_overlap: breakdown.filter((b) => b.maintenance_ms > 0).length,
  lock_wait_ms: phase((b) => b.lock_wait_ms),
  landings_with_lock_wait: breakdown.filter((b) => b.lock_wait_ms > 0).length,
};
const slowest = [...breakdown].sort((x, y) => y.all_ms - x.all_ms).slice(0, 5);
// Polls that found nothing and ran no deferred maintenance (an iteration that ran one polls again at once).
const idleIterations = events('iteration').filter(
  (e) => e.t >= idleFrom && e.t <= idleTo && e.batches === 0 && !e.poll_again,
);
const idleMaintenanceMs = maintenance
  .filter((e) => e.start + e.ms >= idleFrom && e.start <= idleTo)
  .reduce((sum, e) => sum + Math.min(e.start + e.ms, idleTo) - Math.max(e.start, idleFrom), 0);
const mean = (values) => (values.length ? values.reduce((s, v) => s + v, 0) / values.length : null);
const idlePoll = {
  polls: idleIterations.length,
  cpu_ms_per_poll: round(mean(idleIterations.map((e) => e.cpu_ms)) ?? NaN),
  poll_ms: round(mean(events('poll').filter((e) => e.t >= idleFrom && e.t <= idleTo).map((e) => e.t - e.start)) ?? NaN),
  // deferred maintenance inside the idle CPU window (idle_cpu_percent includes it)
  maintenance_ms_in_window: round(idleMaintenanceMs),
  rss_bytes: idleIterations.at(-1)?.rss_bytes ?? null,
  heap_in_use_bytes: idleIterations.at(-1)?.heap_in_use_bytes ?? null,
  heap_free_bytes: idleIterations.at(-1)?.heap_free_bytes ?? null,
};
const maxRss = Math.max(...events('iteration').map((e) => e.rss_bytes));
for (const b of slowest) {
  console.error(
    `landing ${b.landing}: all ${b.all_ms} ms (first ${b.first_ms}); poll found it after ${b.wait_for_poll_ms} ms, took ${b.poll_ms} ms; ` +
      `batches ${b.batches.map((x) => `${x.table} @${x.start_ms}+${x.ms}`).join(', ')}; ` +
      `maintenance overlap ${b.maintenance_ms} ms ${b.maintenance_tables.join(', ')}; waited for maintenance commits ${b.lock_wait_ms} ms`,
  );
}
console.error(`phases: ${JSON.stringify(phases)}`);
console.error(`idle: ${JSON.stringify(idlePoll)}; peak RSS seen in the trace ${maxRss}`);
console.log(
  JSON.stringify({
    landings,
    poll_resolution_ms: pollMs,
    first_table_ms: summary(first),
    all_tables_ms: summary(all),
    idle_cpu_percent: ((b.ticks - a.ticks) / ticksPerSecond / idleSeconds) * 100,
    idle_rss_bytes: b.rssBytes,
    phases,
    slowest,
    idle_poll: idlePoll,
    trace_peak_rss_bytes: maxRss,
  }),
);
