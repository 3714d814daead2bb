// `floe run --http` and `floe status` against what the ledger and the tables
// say, over one continuous run of a CDA landing zone:
// - while folders land, /metrics is scraped and parsed by an independent
//   parser (parse-prometheus-text-format, pinned): every family has HELP and
//   TYPE, counters end in _total, no label names a file; the pending files
//   match the ledger whenever the ledger did not change around the scrape;
//   once quiet, the batch, file, row and quarantine counters equal the
//   ledger's records and the tables' rows (inserted - deleted = rows scanned);
// - the dashboard is loaded by Debian's Chromium through playwright-core
//   (pinned): it shows the tables and the quarantined file whose name holds
//   "<script>" as text, no script of the data runs, and a screenshot is
//   saved (build/test-artifacts/dashboard.png beside the floe binary);
// - a CDA reset stops a table: /readyz answers 503 naming it, its gauge
//   floe_table_stopped is 1, /api/status says why;
// - `floe status` is right for the running pipeline, the stopped one, one
//   with a batch left open (the ledger a kill mid-batch leaves), the stopped
//   table and the quarantined files;
// - on a Kafka source (the test broker, records produced by kcat), the
//   per-partition gauges (committed offset, high watermark, lag) equal the
//   brokers' watermarks, `floe files --lag` and `floe status` once caught
//   up, and lag = high watermark - committed at every scrape before.
//
// Env: FLOE_BIN (required); FLOE_KEEP_TEMP=1 keeps the work directory.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { chromium } from 'playwright-core';

import { highWatermark, kafkaToolsMissing, produce, startKafka } from '../tools/kafka.mjs';
import { writeZoneConfig } from '../tools/landing_zones.mjs';
import {
  FLOE, catalogArgs, committedFiles, exportTables, floeRows, ledgerFiles, runFloe, runFloeOk, skipWithoutFloe,
  writePipelineConfig,
} from '../tools/pipeline_oracle.mjs';

const CHROMIUM = '/usr/bin/chromium';
const XSS_NAME = 'part-00666-<script>window.__floeXss=1<\\script><img src=x onerror="window.__floeXss=2">.parquet';
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-observability-'));
after(() => {
  if (process.env.FLOE_KEEP_TEMP !== '1') fs.rmSync(workDir, { recursive: true, force: true });
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// `floe run CONFIG --http 127.0.0.1:0`; resolves with the base URL it prints.
function startDaemon(config) {
  const child = spawn(FLOE, ['run', config, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const daemon = { child, log: '', exit: null };
  daemon.exited = new Promise((resolve) => child.on('exit', (code, signal) => {
    daemon.exit = { code, signal };
    resolve(daemon.exit);
  }));
  daemon.url = new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      daemon.log += chunk;
      const match = daemon.log.match(/the dashboard at (http:\/\/127\.0\.0\.1:\d+)\//);
      if (match) resolve(match[1]);
    });
    daemon.exited.then(() => reject(new Error(`floe run exited before serving:\n${daemon.log}`)));
  });
  return daemon;
}

async function get(url) {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

// The exposition as {name -> family}, parsed by parse-prometheus-text-format.
async function scrape(base) {
  const { status, type, body } = await get(`${base}/metrics`);
  assert.equal(status, 200, body);
  assert.equal(type, 'text/plain; version=0.0.4; charset=utf-8');
  const families = new Map(parsePrometheusTextFormat(body).map((family) => [family.name, family]));
  for (const [name, family] of families) {
    assert.match(name, /^(floe|process)_[a-z_]+$/, name);
    assert.ok(family.help.length > 0, `${name} has no HELP`);
    if (family.type === 'COUNTER') assert.match(name, /_total$/, `counter ${name}`);
    for (const sample of family.metrics) {
      for (const label of Object.keys(sample.labels ?? {})) {
        assert.ok(['pipeline', 'table', 'kind', 'partition', 'version'].includes(label), `${name} label ${label}`);
      }
    }
  }
  return { families, body };
}

// Per table label: the value of a counter or gauge (histograms: their count).
function values(families, name, match = {}) {
  const out = new Map();
  for (const sample of families.get(name)?.metrics ?? []) {
    const labels = sample.labels ?? {};
    if (Object.entries(match).some(([k, v]) => labels[k] !== v)) continue;
    const value = Number(sample.value ?? sample.count);
    out.set(labels.table ?? '', (out.get(labels.table ?? '') ?? 0) + value);
  }
  return out;
}
const total = (map) => [...map.values()].reduce((a, b) => a + b, 0);

// One table's histogram, parsed alone: parse-prometheus-text-format 1.1.1
// merges the samples of a histogram whose labels differ, so each table's
// lines go to it separately with only their `le` label.
function histogramOf(body, name, table) {
  const lines = body.split('\n').filter((line) => line.startsWith(`# HELP ${name} `) ||
    line.startsWith(`# TYPE ${name} `) ||
    (new RegExp(`^${name}_(bucket|sum|count)\\{`).test(line) && line.includes(`table="${table}"`)));
  const text = lines.map((line) => line.replace(/\{([^}]*)\}/, (all, labels) => {
    const le = labels.match(/(?:^|,)(le="[^"]*")/);
    return le ? `{${le[1]}}` : '';
  })).join('\n') + '\n';
  const [family] = parsePrometheusTextFormat(text);
  assert.equal(family.type, 'HISTOGRAM');
  assert.equal(family.metrics.length, 1);
  return family.metrics[0];
}

function status(config) {
  return JSON.parse(runFloeOk(['status', config, '--json']).stdout);
}

// The pending files per table, and a fingerprint of every file's state: two
// reads with equal fingerprints bracket a moment the ledger did not change.
// (Equal pending counts alone do not: files can be discovered and committed
// between the reads, leaving both at zero while a scrape saw them pending.)
function pendingInLedger(config) {
  const pending = new Map();
  const files = ledgerFiles(config);
  for (const f of files) {
    if (f.state === 'discovered') pending.set(f.table, (pending.get(f.table) ?? 0) + 1);
  }
  const fingerprint = JSON.stringify(files.map((f) => [f.table, f.path, f.state]).sort());
  return { pending, fingerprint };
}

test('floe run --http: metrics, readiness, the dashboard and floe status agree with the ledger and the tables', async (t) => {
  if (skipWithoutFloe(t)) return;
  const exportDir = path.join(workDir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '11', '--rows', '400', '--tables', '2', '--folders', '2',
    '--files-per-folder', '2', '--no-uncommitted-folder']);
  const [tableA, tableB] = exportTables(exportDir);
  const targetA = `cda.${tableA.toLowerCase()}`;
  const targetB = `cda.${tableB.toLowerCase()}`;
  // A file that is not Parquet, named like an attack on the dashboard.
  const xssFile = path.join(path.dirname(committedFiles(exportDir, tableA)[0]), XSS_NAME);
  fs.writeFileSync(xssFile, 'this is not parquet at all');
  const config = writePipelineConfig(workDir, exportDir, {
    name: 'observed',
    extra: '[trigger]\ninterval = "300ms"\nmax_files_per_batch = 2\n[maintenance]\ncompact_every = 2\nmin_input_files = 2\n',
  });

  const daemon = startDaemon(config);
  try {
    const base = await daemon.url;
    assert.equal((await get(`${base}/healthz`)).status, 200);
    // Ready once a poll ended and the catalog answers.
    let ready = null;
    for (let i = 0; i < 100 && ready?.status !== 200; ++i) {
      ready = await get(`${base}/readyz`);
      if (ready.status !== 200) await sleep(100);
    }
    assert.equal(ready.status, 200, ready.body);

    // Landings while it runs; each scrape bracketed by two ledger reads.
    let compared = 0;
    for (let round = 1; round <= 4; ++round) {
      runFloeOk(['demo', 'generate', exportDir, '--append-round', String(round), '--append-folders', '1']);
      for (let i = 0; i < 3; ++i) {
        const { pending: before, fingerprint } = pendingInLedger(config);
        const { families } = await scrape(base);
        if (fingerprint === pendingInLedger(config).fingerprint) {
          const scraped = values(families, 'floe_files_pending');
          for (const [table, count] of before) {
            assert.equal(scraped.get(`cda.${table.toLowerCase()}`), count, `pending files of ${table}`);
          }
          assert.equal(total(scraped), total(before));
          ++compared;
        }
        await sleep(150);
      }
    }
    t.diagnostic(`pending compared with a steady ledger in ${compared} of 12 scrapes`);

    // Quiet: nothing pending, two scrapes alike.
    let last = null;
    for (let i = 0; i < 100; ++i) {
      const { families, body } = await scrape(base);
      const pending = total(values(families, 'floe_files_pending')) + total(values(families, 'floe_files_in_batch'));
      // Idle polls still count up and time themselves; everything else must hold still.
      const stable = body.replace(/^(process_|floe_oldest|floe_last_poll|floe_polls_total|floe_poll_).*$/gm, '');
      if (pending === 0 && last?.stable === stable) break;
      last = { families, stable };
      await sleep(400);
    }
    const { families, body: quietBody } = await scrape(base);
    const ledger = ledgerFiles(config);
    const committed = (table) => ledger.filter((f) => f.table === table && f.state === 'committed');
    const running = status(config);
    assert.equal(running.running, true);
    assert.equal(running.pid, daemon.child.pid);
    for (const [table, target] of [[tableA, targetA], [tableB, targetB]]) {
      const row = running.tables.find((r) => r.source_table === table);
      assert.ok(row, `floe status lists ${table}`);
      assert.equal(row.table, target);
      assert.equal(row.pending_files, 0);
      // Counts against the ledger.
      const batchIds = new Set(committed(table).map((f) => f.batch));
      assert.equal(values(families, 'floe_batches_committed_total').get(target), batchIds.size, `${table} batches`);
      assert.equal(values(families, 'floe_files_committed_total').get(target), committed(table).length,
        `${table} files`);
      assert.equal(values(families, 'floe_rows_committed_total', { kind: 'inserted' }).get(target),
        row.last_day.inserted);
      assert.equal(values(families, 'floe_rows_committed_total', { kind: 'updated' }).get(target), row.last_day.updated);
      for (const histogram of ['floe_batch_duration_seconds', 'floe_commit_duration_seconds']) {
        const { count, buckets } = histogramOf(quietBody, histogram, target);
        assert.equal(Number(count), batchIds.size, `${histogram} of ${target}`);
        assert.equal(Number(buckets['+Inf']), batchIds.size);
      }
      // Against the table: every key inserted and not deleted is a row.
      const rows = floeRows(workDir, target, new Set());
      assert.deepEqual(rows.duplicates, []);
      const inserted = values(families, 'floe_rows_committed_total', { kind: 'inserted' }).get(target);
      const deleted = values(families, 'floe_rows_committed_total', { kind: 'deleted' }).get(target);
      assert.equal(rows.count, inserted - deleted, `${target}: rows scanned vs inserted - deleted`);
      const lastCommit = values(families, 'floe_last_commit_timestamp_seconds').get(target);
      assert.equal(lastCommit, Date.parse(row.last_batch.committed_at) / 1000);
    }
    assert.equal(values(families, 'floe_files_quarantined_total').get(targetA), 1);
    assert.equal(values(families, 'floe_quarantined_files').get(targetA), 1);
    assert.equal(running.quarantined.length, 1);
    assert.equal(running.quarantined[0].uri, xssFile);
    assert.match(running.quarantined[0].reason, /parquet|Parquet|magic/);
    assert.ok(!/<script>|part-00666/.test(await (await fetch(`${base}/metrics`)).text()), 'no file name in /metrics');
    // The Grafana dashboard and the alert rules name only metrics floe serves.
    const exposition = await (await fetch(`${base}/metrics`)).text();
    const source = process.env.FLOE_SOURCE_DIR ?? path.resolve(path.dirname(FLOE), '..');
    for (const file of ['deploy/grafana/floe-dashboard.json', 'deploy/prometheus/floe-alerts.yml']) {
      const text = fs.readFileSync(path.join(source, file), 'utf8');
      if (file.endsWith('.json')) JSON.parse(text);
      for (const [name] of text.matchAll(/\bfloe_[a-z_]+/g)) {
        const family = name.replace(/_(bucket|sum|count)$/, '');
        assert.ok(exposition.includes(`# TYPE ${family} `), `${file} uses ${name}, which /metrics does not serve`);
      }
    }
    const apiStatus = JSON.parse((await get(`${base}/api/status`)).body);
    assert.deepEqual(apiStatus.tables.map((r) => r.source_table), running.tables.map((r) => r.source_table));

    // The dashboard in a real browser.
    const artifacts = path.join(path.dirname(FLOE), 'test-artifacts');
    fs.mkdirSync(artifacts, { recursive: true });
    const profile = fs.mkdtempSync(path.join(workDir, 'chromium-'));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 1300 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await browser.newPage();
      const dialogs = [];
      page.on('dialog', async (dialog) => {
        dialogs.push(dialog.message());
        await dialog.dismiss();
      });
      const external = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(base)) external.push(request.url());
      });
      await page.goto(`${base}/`);
      await page.waitForSelector('#tables tbody tr td:nth-child(2)');
      await page.waitForFunction(() => document.querySelectorAll('#quarantined tbody td.wrap').length > 0);
      const tableCells = await page.$$eval('#tables tbody tr td:nth-child(2)', (cells) => cells.map((c) => c.textContent));
      assert.deepEqual(tableCells.sort(), [targetA, targetB].sort());
      const shown = await page.$$eval('#quarantined tbody td.wrap', (cells) => cells.map((c) => c.textContent));
      assert.ok(shown.includes(xssFile), `the quarantined file is shown as text: ${JSON.stringify(shown)}`);
      assert.equal(await page.evaluate(() => window.__floeXss), undefined, 'a script from the data ran');
      assert.equal(await page.$$eval('#quarantined script, #quarantined img', (nodes) => nodes.length), 0);
      assert.deepEqual(dialogs, []);
      assert.ok(await page.$('#chart svg rect'), 'the chart is drawn');
      assert.deepEqual(external, [], 'the page loads nothing from elsewhere');
      const screenshot = path.join(artifacts, 'dashboard.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      t.diagnostic(`dashboard screenshot: ${screenshot}`);
    } finally {
      await browser.close();
    }

    // A CDA reset stops table B: not ready, its gauge, its reason.
    const manifestPath = path.join(exportDir, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
    manifest[tableB].lastSuccessfulWriteTimestamp = Number(manifest[tableB].lastSuccessfulWriteTimestamp) - 1;
    // Replaced whole, as an S3 PUT replaces an object: the daemon polls all
    // the while, and a file rewritten in place can be read half written
    // ("manifest.json: not valid JSON", a source-unreachable 503 instead).
    fs.writeFileSync(`${manifestPath}.tmp`, JSON.stringify(manifest, null, 2));
    fs.renameSync(`${manifestPath}.tmp`, manifestPath);
    let notReady = null;
    for (let i = 0; i < 100; ++i) {
      notReady = await get(`${base}/readyz`);
      if (notReady.status === 503) break;
      await sleep(100);
    }
    assert.equal(notReady.status, 503, notReady.body);
    assert.match(notReady.body, new RegExp(`table ${targetB.replace('.', '\\.')} stopped: CDA table ${tableB} was reset`));
    const stoppedGauge = values((await scrape(base)).families, 'floe_table_stopped');
    assert.equal(stoppedGauge.get(targetB), 1);
    assert.equal(stoppedGauge.get(targetA) ?? 0, 0);
  } finally {
    daemon.child.kill('SIGTERM');
    const exit = await daemon.exited;
    assert.equal(exit.code, 0, daemon.log);
  }

  // The pipeline is stopped now.
  const stopped = status(config);
  assert.equal(stopped.running, false);
  const rowB = stopped.tables.find((r) => r.source_table === tableB);
  assert.equal(rowB.state, 'stopped');
  assert.match(rowB.reason, /was reset.*--reload-table/);
  assert.ok(rowB.last_batch.committed_at);
  assert.equal(stopped.quarantined[0].uri, xssFile);
  const text = runFloeOk(['status', config]).stdout;
  assert.match(text, /pipeline observed: not running/);
  assert.match(text, new RegExp(`${tableB} is stopped since .*was reset`));
  assert.ok(text.includes(XSS_NAME), 'the quarantined file is listed');

  // A batch left open, as a kill mid-batch leaves the ledger: status says so, the next run resolves it.
  const uri = ledgerFiles(config).find((f) => f.table === tableA && f.state === 'committed').uri;
  const ledgerDb = path.join(workDir, 'state', 'ledger.db');
  const opened = spawnSync('python3', ['-c', `
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
with db:
    batch = db.execute("SELECT max((SELECT value FROM meta WHERE key = 'next_batch_id'), (SELECT coalesce(max(batch_id), 0) + 1 FROM batches))").fetchone()[0]
    db.execute("UPDATE meta SET value = ? WHERE key = 'next_batch_id'", (batch + 1,))
    db.execute("INSERT INTO batches(batch_id, tbl, committed, snapshot_id, created_at_ms) VALUES (?, ?, 0, NULL, ?)", (batch, sys.argv[2], int(time.time() * 1000)))
    db.execute("UPDATE files SET state = 'in_batch', batch_id = ?, batch_seq = 0, snapshot_id = NULL WHERE uri = ?", (batch, sys.argv[3]))
print(batch)
`, ledgerDb, tableA, uri], { encoding: 'utf8' });
  assert.equal(opened.status, 0, opened.stderr);
  const openBatch = Number(opened.stdout.trim());
  const midBatch = status(config);
  const rowA = midBatch.tables.find((r) => r.source_table === tableA);
  assert.equal(rowA.state, 'ingesting');
  assert.equal(rowA.open_batch, openBatch);
  assert.equal(rowA.in_batch_files, 1);
  assert.ok(midBatch.recent_batches.some((b) => b.batch === openBatch && !b.committed));
  assert.match(runFloeOk(['status', config]).stdout, new RegExp(`ingesting \\(batch ${openBatch} open\\)`));
  const resolved = runFloe(['run', config, '--once']);  // exits 1: table B stays stopped
  assert.equal(resolved.status, 1, resolved.stderr);
  assert.match(resolved.stderr, new RegExp(`recovery: batch ${openBatch} of ${tableA}`));
  const after = status(config);
  const rowAfter = after.tables.find((r) => r.source_table === tableA);
  assert.equal(rowAfter.open_batch, null);
  assert.notEqual(rowAfter.state, 'ingesting');
  assert.equal(after.tables.find((r) => r.source_table === tableB).state, 'stopped');
  // Reloading the reset table clears its state.
  runFloeOk(['files', config, '--reload-table', tableB]);
  assert.notEqual(status(config).tables.find((r) => r.source_table === tableB)?.state, 'stopped');
  // Its catalog details are there too.
  assert.ok(after.tables.find((r) => r.source_table === tableA).maintenance.data_files > 0);
  assert.deepEqual(after.errors, []);
  void catalogArgs;
});

test('log_format = "json": every stderr line of a run, from start to SIGTERM, is one JSON object; batch snapshots are ids as strings', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(workDir, 'json-log-'));
  const exportDir = path.join(dir, 'export');
  runFloeOk(['demo', 'generate', exportDir, '--seed', '5', '--rows', '60', '--tables', '2', '--folders', '1',
    '--files-per-folder', '1', '--no-uncommitted-folder']);
  const config = writePipelineConfig(dir, exportDir, {
    name: 'json-logged', extra: '[trigger]\ninterval = "200ms"\n[observability]\nlog_format = "json"\n',
  });
  const daemon = startDaemon(config);
  let lines = [];
  try {
    await daemon.url;
    const batches = () => daemon.log.split('\n').filter((line) => line.includes('"event":"batch"')).length;
    for (let i = 0; i < 100 && batches() < 2; ++i) await sleep(100);
    assert.equal(batches(), 2, daemon.log);
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    lines = daemon.log.split('\n').filter((line) => line.length > 0);
  }
  assert.equal(daemon.exit.code, 0, daemon.log);
  const events = lines.map((line) => {
    let event;
    assert.doesNotThrow(() => { event = JSON.parse(line); }, `not a JSON line: ${line}`);
    for (const key of ['ts', 'level', 'pipeline', 'event', 'msg']) assert.ok(key in event, `${key} missing: ${line}`);
    assert.equal(event.pipeline, 'json-logged');
    return event;
  });
  assert.ok(events.some((e) => /serving \/metrics/.test(e.msg)), 'the serving line is a JSON line');
  assert.ok(events.some((e) => /stopped by a signal/.test(e.msg)), 'the stop is a JSON line');
  // Ids as text (63-bit ids lose digits as JSON numbers), the same ids floe status reports.
  const snapshots = new Set(events.filter((e) => e.event === 'batch').map((e) => e.snapshot));
  for (const snapshot of snapshots) assert.match(snapshot, /^\d+$/);
  for (const row of status(config).tables) assert.ok(snapshots.has(row.last_batch.snapshot), JSON.stringify(row));
});

test('floe run --http on a Kafka source: per-partition committed offset, high watermark and lag match the brokers and the ledger', async (t) => {
  if (skipWithoutFloe(t)) return;
  const missing = kafkaToolsMissing();
  if (missing) {
    t.skip(`skipped: ${missing}`);
    return;
  }
  const dir = fs.mkdtempSync(path.join(workDir, 'kafka-'));
  const topic = 'shop.events';
  const kafka = await startKafka({ topics: [[topic, 2]] });
  const events = (first, count) => Array.from({ length: count }, (_, i) => ({
    key: `user-${(first + i) % 7}`, value: JSON.stringify({ event_id: first + i, kind: 'click' }) }));
  let daemon = null;
  try {
    await produce(kafka.bootstrap, topic, 0, events(0, 150));
    await produce(kafka.bootstrap, topic, 1, events(150, 90));
    const config = writeZoneConfig(dir, `[source]
discovery = "kafka"
uri = "kafka://${kafka.bootstrap}"
topics = ["${topic}"]
format = "json"
changes = "append"
[target]
namespace = "obs"
[trigger]
interval = "300ms"
max_records_per_batch = 50
`, { name: 'stream' });
    daemon = startDaemon(config);
    const base = await daemon.url;
    const partitionsOf = (families) => {
      const out = new Map();
      for (const name of ['floe_stream_committed_offset', 'floe_stream_high_watermark', 'floe_stream_lag_records']) {
        for (const sample of families.get(name)?.metrics ?? []) {
          assert.equal(sample.labels.table, 'obs.events');
          const entry = out.get(sample.labels.partition) ?? {};
          entry[name.replace('floe_stream_', '')] = Number(sample.value);
          out.set(sample.labels.partition, entry);
        }
      }
      return out;
    };
    const settle = async (highs) => {
      let partitions = null;
      for (let i = 0; i < 150; ++i) {
        partitions = partitionsOf((await scrape(base)).families);
        const done = highs.every((high, p) => partitions.get(`${topic}/${p}`)?.committed_offset === high);
        if (done) return partitions;
        for (const entry of partitions.values()) {
          assert.equal(entry.lag_records, Math.max(0, entry.high_watermark - entry.committed_offset));
        }
        await sleep(200);
      }
      assert.fail(`the partitions did not catch up: ${JSON.stringify([...partitions])}`);
    };
    const check = async (highs) => {
      const partitions = await settle(highs);
      const lag = runFloeOk(['files', config, '--lag', '--format', 'jsonl']).stdout.trim().split('\n').map((l) => JSON.parse(l));
      const streams = status(config).streams;
      for (let p = 0; p < highs.length; ++p) {
        const high = await highWatermark(kafka.bootstrap, topic, p);
        assert.equal(high, highs[p]);
        const metric = partitions.get(`${topic}/${p}`);
        assert.deepEqual(metric, { committed_offset: high, high_watermark: high, lag_records: 0 });
        const ledger = lag.find((l) => l.partition === p);
        assert.equal(ledger.committed, high, 'floe files --lag');
        assert.equal(ledger.lag, 0);
        const row = streams.find((s) => s.partition === String(p));
        assert.deepEqual([row.topic, row.table, row.committed, row.high, row.lag], [topic, 'events', high, high, 0]);
      }
    };
    await check([150, 90]);
    // More records land on one partition: it catches up, the other stays.
    await produce(kafka.bootstrap, topic, 0, events(240, 120));
    await check([270, 90]);
  } finally {
    if (daemon) {
      daemon.child.kill('SIGTERM');
      const exit = await daemon.exited;
      assert.equal(exit.code, 0, daemon.log);
    }
    await kafka.stop();
  }
});
