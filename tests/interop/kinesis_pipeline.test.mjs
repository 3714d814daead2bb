// `floe run CONFIG` with discovery = "kinesis" against moto's Kinesis
// (tests/tools/moto.mjs), records put with boto3 (tests/tools/aws_driver.py),
// floe going through tests/tools/fault_proxy.mjs, which verifies every SigV4
// signature and injects throttling (ProvisionedThroughputExceededException)
// into a share of the requests.
// - Debezium change events (tests/tools/debezium.mjs, JSON without the
//   schema wrapper, a delete's tombstone as empty data) over 3 shards, with a
//   split and a merge mid-stream and re-deliveries (the generator's connector
//   restarts, and moto's merge copies its parents' records into the child):
//   FLOE_KINESIS_KILLS (default 21) continuous runs killed with SIGKILL at
//   seeded random moments (FLOE_KINESIS_SEED), the puts and reshards between
//   them, then `floe run --once`: the table equals the DuckDB oracle, no key
//   twice, and the ledger's committed ranges cover every shard's sequence
//   numbers (boto3's own reading of every shard) exactly once.
// - changes = "append" with kinesis_metadata: plain JSON events, KPL
//   aggregates (AWS Labs' aws-kinesis-agg), a record that is not JSON and a
//   malformed aggregate over two --once rounds: each user record once with
//   its kinesis struct (read from the data files by hyparquet), the bad ones
//   in <table>__dead_letter with stream, shard and sequence number; `floe
//   files --lag` says every shard is read.
// - A 12 MB backlog with memory_budget = 64MiB (a Discover's bound is 8 MiB):
//   one `--once` takes every record, and no Discover (the ledger units that
//   share a discovered_at_ms) holds more than the bound and a quarter.
// moto quirks the tests live with: after a reshard moto keeps routing new
// records to the closed parents (and a closed shard's end moves with them),
// so records are put and shards resharded only while no floe run is reading;
// sequence numbers are small per-shard counters.
// Skipped, saying so, where moto_server is not installed.
//
// Env: FLOE_BIN (required), FLOE_KINESIS_KILLS, FLOE_KINESIS_SEED, FLOE_KEEP_TEMP.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generateChanges, encodeEvent, renderRow, oracle } from '../tools/debezium.mjs';
import { motoMissingReason, startAwsDriver, startMoto } from '../tools/moto.mjs';
import { catalogOf, compareByKey, scanZoneTable, writeZoneConfig } from '../tools/landing_zones.mjs';
import { FLOE, ledgerFiles, logTail, runFloe, runFloeOk, skipWithoutFloe, startDaemon, startNodeTool } from '../tools/pipeline_oracle.mjs';
import { openDuckDB } from '../tools/readers.mjs';
import { hyparquetRows } from '../tools/change_feed_oracle.mjs';
import { makeRng } from '../tools/random_parquet.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const KILLS = Number(process.env.FLOE_KINESIS_KILLS ?? 21);
const SEED = Number(process.env.FLOE_KINESIS_SEED ?? 20261202);
const NAMESPACE = 'cdc';
const AWS_ENV = {
  AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'us-east-1',
  AWS_SHARED_CREDENTIALS_FILE: '/dev/null', AWS_CONFIG_FILE: '/dev/null',
};
const PLAIN = ['id', 'first_name', 'last_name', 'email', 'external_id', 'prefs', 'active', 'level', 'notes', 'phone'];

let db;
let work;
let moto;
before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-kinesis-pipeline-'));
  if (FLOE && !motoMissingReason()) {
    db = await openDuckDB();
    moto = await startMoto({ log: path.join(work, 'moto.log') });
  }
});
after(async () => {
  aws?.stop();
  await moto?.stop?.();
  db?.close();
  if (work && !process.env.FLOE_KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

function skipped(t) {
  if (skipWithoutFloe(t)) return true;
  const missing = motoMissingReason();
  if (missing) {
    t.skip(`skipped: ${missing}`);
    return true;
  }
  return false;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// boto3 (aws_driver.py --serve): one process for the whole file.
let aws;
const driver = (command) => (aws ??= startAwsDriver(moto.url)).call(command);

// The fault proxy in front of moto (verifying signatures with moto's test secret).
async function startProxy() {
  const children = [];
  const port = await startNodeTool([path.join(HERE, '..', 'tools', 'fault_proxy.mjs'), String(moto.port), 'testing'], children);
  const url = `http://127.0.0.1:${port}`;
  const control = async (what, body) => (await fetch(`${url}/__proxy/${what}`, {
    method: body === undefined ? 'GET' : 'POST', body: body === undefined ? undefined : JSON.stringify(body),
  })).json();
  return {
    url, control,
    stop: () => new Promise((resolve) => {
      children[0].once('exit', resolve);
      children[0].stdin.end();
    }),
  };
}

// Puts `records` ({key, data: Buffer}) in order; returns [{shard, sequence}].
async function put(stream, records) {
  return await driver({ command: 'kinesis-put', stream, batch: true,
    records: records.map((r) => ({ key: r.key, data_b64: r.data.toString('base64') })) });
}

function kinesisConfig(dir, stream, { source = '', extra = '', name = 'kin', changes = 'debezium', merge = '' } = {}) {
  return writeZoneConfig(dir, `[source]
discovery = "kinesis"
uri = "kinesis://${stream}"
format = "json"
changes = "${changes}"
${source}
[target]
namespace = "${NAMESPACE}"
${merge}
${extra}`, { name });
}

function runOnce(config, env = {}) {
  const run = spawnSync(FLOE, ['run', config, '--once'],
    { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20, env: { ...process.env, ...AWS_ENV, ...env } });
  assert.equal(run.status, 0, `floe run --once: exit ${run.status} ${run.signal ?? ''}\n${run.stderr}\n${run.stdout}`);
  return run;
}

// The ledger's Kinesis units: { uri, state, stream, shard, first, last } (BigInt positions).
function kinesisUnits(config) {
  return ledgerFiles(config).map((f) => {
    const m = /^kinesis:\/\/([^/]+)\/([^/]+)\/(\d+)-(\d+)$/.exec(f.uri);
    return { uri: f.uri, state: f.state, reason: f.reason, parsed: !!m, stream: m?.[1], shard: m?.[2],
      first: m && BigInt(m[3]), last: m && BigInt(m[4]) };
  });
}

// Problems with the ledger: every unit committed, and per shard of boto3's
// dump (shard -> [[sequence, data]]) each sequence number in exactly one
// committed range, every range starting and ending on a record of its shard.
function coverageProblems(units, dump) {
  const problems = [];
  const byShard = new Map();
  for (const u of units) {
    if (!u.parsed) problems.push(`ledger unit ${u.uri} is not kinesis://<stream>/<shard>/<first>-<last>`);
    else if (!(u.shard in dump)) problems.push(`ledger unit ${u.uri}: no such shard`);
    if (u.state !== 'committed') problems.push(`ledger unit ${u.uri} is ${u.state}${u.reason ? ` (${u.reason})` : ''}`);
    if (u.parsed) byShard.set(u.shard, [...(byShard.get(u.shard) ?? []), u]);
  }
  for (const [shard, records] of Object.entries(dump)) {
    const sequences = records.map((r) => BigInt(r[0]));
    const ranges = (byShard.get(shard) ?? []).sort((a, b) => (a.first < b.first ? -1 : 1));
    const have = new Set(sequences.map(String));
    for (const r of ranges) {
      if (!have.has(String(r.first)) || !have.has(String(r.last))) problems.push(`${r.uri}: an end is no record of ${shard}`);
    }
    for (const s of sequences) {
      const holding = ranges.filter((r) => r.first <= s && s <= r.last);
      if (holding.length !== 1) problems.push(`${shard} sequence number ${s}: in ${holding.length} ledger ranges`);
    }
  }
  return problems.slice(0, 15);
}

test(`Debezium over a resharded stream with re-deliveries and throttling, ${KILLS} kill -9s of continuous runs: equals the oracle`,
  async (t) => {
    if (skipped(t)) return;
    const random = makeRng(SEED).next;
    const dir = fs.mkdtempSync(path.join(work, 'kill-'));
    const stream = 'dbserver1.inventory.customers';
    await driver({ command: 'kinesis-create', stream, shards: 3 });
    const proxy = await startProxy();
    try {
      await proxy.control('random', { fault: 'throttle', rate: 0.15, seed: SEED });
      const generated = generateChanges('customers', { seed: 11, keys: 150, changes: 900, redeliveryRate: 0.05 });
      const events = generated.events;
      const dump = [];
      const putEvents = async (from, to) => {
        const slice = events.slice(from, to);
        const records = [];
        for (const event of slice) {
          const { key, value } = await encodeEvent(generated.table, event, 'json-schemaless');
          records.push({ key, data: value == null ? Buffer.alloc(0) : Buffer.from(value) });
        }
        const placed = await put(stream, records);
        slice.forEach((event, i) => dump.push({
          topic: stream, table: 'customers', partition: 0, offset: dump.length, shard: placed[i].shard,
          key_text: JSON.stringify({ id: event.key }), op: event.op, position: event.position,
          row_text: event.after == null ? null : JSON.stringify(renderRow(generated.table.versions[event.version], event.after)),
        }));
      };
      // Small ranges, one a batch: a killed run dies amid batches. The final
      // run (the same pipeline) takes whole backlogs in one batch.
      const configWith = (batchRanges) => kinesisConfig(dir, stream, {
        source: `endpoint = "${proxy.url}"\ntable = "customers"`,
        merge: '[merge]\nkeys = ["id"]',
        extra: `[trigger]\ninterval = "1s"\nmax_records_per_batch = 15\nmax_files_per_batch = ${batchRanges}\n`,
      });
      const config = configWith(1);
      // A chunk of the events is put before every run (so each killed run
      // has records to read and batches to commit); shard 0 is split before
      // the runs of the second third and the split's upper child merged with
      // shard 1 before the last third. All while no run reads (moto quirks).
      const chunks = KILLS + 1;
      const chunk = (i) => putEvents(Math.floor((events.length * i) / chunks), Math.floor((events.length * (i + 1)) / chunks));
      const reshards = new Map([
        [Math.floor(KILLS / 3), async () => {
          // Split shard 0 at 2^126 (its children are shards 3 and 4).
          await driver({ command: 'kinesis-split', stream, shard: 'shardId-000000000000',
            new_starting_hash_key: '56713727820156410577229101238628035242' });
        }],
        [Math.floor((2 * KILLS) / 3), async () => {
          // Merge shard 4 (the split's upper child) with shard 1 into shard 5.
          await driver({ command: 'kinesis-merge', stream, shard: 'shardId-000000000004', adjacent: 'shardId-000000000001' });
        }],
      ]);
      let killed = 0;
      const delays = [];
      const started = Date.now();
      for (let i = 0; i < KILLS; ++i) {
        await reshards.get(i)?.();
        await chunk(i);
        const delay = Math.floor(150 + random() * 1100);
        const daemon = startDaemon(config, { env: AWS_ENV });
        const timer = setTimeout(() => daemon.child.kill('SIGKILL'), delay);
        const exit = await daemon.exited;
        clearTimeout(timer);
        if (process.env.FLOE_KINESIS_LOGS) fs.appendFileSync(path.join(dir, 'daemons.log'), `--- run ${i}, killed after ${delay} ms\n${daemon.log}`);
        if (exit.signal !== 'SIGKILL') {
          assert.fail(`continuous run (to be killed after ${delay} ms) exited by itself: ${JSON.stringify(exit)}\n${logTail(daemon.log)}`);
        }
        ++killed;
        delays.push(delay);
      }
      for (const [at, reshard] of reshards) if (at >= KILLS) await reshard();
      await chunk(KILLS);
      const timings = [`puts and kills ${Date.now() - started} ms`];
      let committedUnderKills = 0;
      let recordedUnderKills = 0;
      try {
        const units = kinesisUnits(config);
        recordedUnderKills = units.length;
        committedUnderKills = units.filter((u) => u.state === 'committed').length;
      } catch (e) {
        t.diagnostic(`floe files after the kills: ${e.message.split('\n')[0]}`);
      }
      t.diagnostic(`${killed} runs killed after ${delays.join(' ')} ms; ranges recorded by them: ${recordedUnderKills}, committed: ${committedUnderKills}`);

      configWith(1000);
      const finalStart = Date.now();
      const final = runOnce(config);
      timings.push(`final run ${Date.now() - finalStart} ms`);
      const dumpPath = path.join(dir, 'dump.jsonl');
      fs.writeFileSync(dumpPath, dump.map((d) => JSON.stringify(d)).join('\n') + '\n');
      const expected = new Map();
      for (const { row } of await oracle(db, dumpPath, 'customers')) {
        const picked = {};
        for (const c of PLAIN) picked[c] = row[c] == null ? null : String(row[c]);
        expected.set(String(row.id), picked);
      }
      const actual = scanZoneTable(dir, `${NAMESPACE}.customers`, ['id']);
      assert.deepEqual(actual.duplicates.slice(0, 10), [], 'keys twice in the table');
      assert.deepEqual(compareByKey(expected, actual.rows, { label: 'customers', limit: 15 }), [],
        `the table differs from the oracle; the last run said:\n${logTail(final.stderr)}`);
      // boto3's reading of every shard, moto's merge copies included.
      const shards = await driver({ command: 'kinesis-dump', stream });
      assert.equal(Object.keys(shards).length, 6, `shards: ${Object.keys(shards)}`);
      assert.deepEqual(coverageProblems(kinesisUnits(config), shards), [], 'ledger');
      const stats = await proxy.control('stats');
      t.diagnostic(`${stats.requests} requests through the proxy, ${stats.throttled ?? 0} throttled; ${timings.join(', ')}`);
      assert.equal(stats.signatureFailures, 0, 'requests with a bad SigV4 signature');
      assert.ok((stats.throttled ?? 0) > 10, 'throttling was injected');
      assert.ok(KILLS === 0 || committedUnderKills > 0, 'no killed run got as far as a commit: the kills proved little');
    } finally {
      await proxy.stop();
    }
  });

// Plain JSON events for changes = "append".
function appEvents(from, count) {
  const events = [];
  for (let i = from; i < from + count; ++i) {
    const value = { event_id: i, kind: ['click', 'view', 'buy'][i % 3], amount: (i * 7) % 100 + 0.25,
      note: i % 9 === 0 ? 'Zürich – ünïcödé' : `n${i}` };
    events.push({ key: `user-${i % 13}`, value });
  }
  return events;
}

test('changes = "append": JSON and KPL-aggregated events land once each with their kinesis struct; bad records are dead letters',
  async (t) => {
    if (skipped(t)) return;
    const dir = fs.mkdtempSync(path.join(work, 'append-'));
    const stream = 'shop_events';
    await driver({ command: 'kinesis-create', stream, shards: 2 });
    const expected = new Map();  // event_id -> {value, key}
    const plain = (events) => events.map((e) => {
      expected.set(e.value.event_id, e);
      return { key: e.key, data: Buffer.from(JSON.stringify(e.value)) };
    });
    await put(stream, plain(appEvents(0, 120)));
    // KPL aggregates (AWS Labs' aws-kinesis-agg), put with boto3.
    const users = path.join(dir, 'users.json');
    fs.writeFileSync(users, JSON.stringify(appEvents(120, 30).map((e) => {
      expected.set(e.value.event_id, e);
      return { partitionKey: e.key, data_b64: Buffer.from(JSON.stringify(e.value)).toString('base64') };
    })));
    const agg = spawnSync(process.execPath, [path.join(HERE, '..', 'tools', 'kpl_aggregate.mjs'), users], { encoding: 'utf8' });
    assert.equal(agg.status, 0, agg.stderr);
    const aggregates = JSON.parse(agg.stdout);
    await put(stream, aggregates.map((a) => ({ key: a.partitionKey, data: Buffer.from(a.data_b64, 'base64') })));
    // Records that make no row: not JSON, and an aggregate whose digest matches but whose protobuf is broken.
    const magic = Buffer.from([0xf3, 0x89, 0x9a, 0xc2]);
    const broken = Buffer.from([0x1a, 0x05, 0x08, 0x00]);  // records: a length past the end
    const { createHash } = await import('node:crypto');
    const malformed = Buffer.concat([magic, broken, createHash('md5').update(broken).digest()]);
    const badPlaced = await put(stream, [{ key: 'bad-1', data: Buffer.from('not json {') }, { key: 'bad-2', data: malformed }]);

    const config = kinesisConfig(dir, stream, { changes: 'append', source: 'kinesis_metadata = true' });
    const env = { AWS_ENDPOINT_URL_KINESIS: moto.url };
    const lagOf = () => {
      const lag = runFloe(['files', config, '--lag', '--format', 'jsonl'], { env: { ...AWS_ENV, ...env } });
      assert.equal(lag.status, 0, lag.stderr);
      return lag.stdout.trim().split('\n').map((line) => JSON.parse(line));
    };
    // Nothing read yet: each shard's next record is its first, behind the tip.
    const unread = lagOf();
    assert.equal(unread.length, 2);
    assert.ok(unread.every((s) => s.state === 'open' && s.committed === '' && s.next !== ''), JSON.stringify(unread));
    assert.ok(unread.some((s) => s.behind_ms > 0), JSON.stringify(unread));
    runOnce(config, env);
    await put(stream, plain(appEvents(150, 60)));
    runOnce(config, env);

    const listing = runFloeOk(['table', 'files', `${NAMESPACE}.shop_events`, ...catalogOf(dir)]).stdout;
    const files = listing.trim().split('\n').slice(1).map((line) => line.split('\t'));
    const rows = [];
    for (const [file] of files) rows.push(...(await hyparquetRows(file)).rows);
    assert.equal(rows.length, expected.size, 'every event once');
    const seen = new Set();
    for (const row of rows) {
      const where = `${row.kinesis.shard}/${row.kinesis.sequence_number}/${row.kinesis.subsequence_number}`;
      assert.ok(!seen.has(where), `${where} twice`);
      seen.add(where);
      const e = expected.get(Number(row.event_id));
      assert.ok(e, `event ${row.event_id} was never put`);
      assert.equal(row.kinesis.stream, stream);
      assert.equal(row.kinesis.partition_key, e.key);
      assert.ok(row.kinesis.arrival, 'arrival time');
      assert.equal(row.kind, e.value.kind);
      assert.equal(row.note, e.value.note);
    }
    assert.equal(rows.filter((r) => r.kinesis.subsequence_number > 0n).length, 30 - aggregates.length,
      'user records of the aggregates carry their index');

    // The two bad records, in the dead-letter table with where they came from.
    const dead = runFloeOk(['table', 'scan', `${NAMESPACE}.shop_events__dead_letter`, ...catalogOf(dir), '--format', 'jsonl'])
      .stdout.trim().split('\n').map((line) => JSON.parse(line)).sort((a, b) => (a.partition_key < b.partition_key ? -1 : 1));
    assert.equal(dead.length, 2, JSON.stringify(dead));
    assert.deepEqual(dead.map((d) => [d.stream, d.shard, d.sequence_number, d.partition_key]),
      badPlaced.map((p, i) => [stream, p.shard, p.sequence, `bad-${i + 1}`]));
    assert.equal(Buffer.from(dead[0].value, 'base64').toString(), 'not json {');
    assert.match(dead[1].error, /KPL aggregate/);
    assert.match(dead[0].error, /shard shardId-\d+, sequence number \d+: /);

    // floe files --lag: every shard read to its end, nothing behind.
    const shards = lagOf();
    assert.equal(shards.length, 2);
    for (const s of shards) {
      assert.equal(s.behind_ms, 0, JSON.stringify(s));
      assert.equal(s.next, '', JSON.stringify(s));
      assert.equal(s.committed, s.recorded, JSON.stringify(s));
      assert.ok(s.committed !== '', JSON.stringify(s));
    }
    const text = runFloe(['files', config, '--lag'], { env: { ...AWS_ENV, ...env } });
    assert.match(text.stdout, /2 shards \(2 open\), the furthest 0 ms behind the tip/);
  });

test('a backlog over a Discover\'s bound (an eighth of memory_budget): each Discover reads at most the bound and a quarter, --once reads on to the end',
  async (t) => {
    if (skipped(t)) return;
    const dir = fs.mkdtempSync(path.join(work, 'backlog-'));
    const stream = 'backlog';
    await driver({ command: 'kinesis-create', stream, shards: 2 });
    // 12 MB of 100 kB records over 2 shards; memory_budget = 64MiB bounds a Discover at 8 MiB.
    const pad = 'x'.repeat(100_000);
    for (let from = 0; from < 120; from += 30) {
      await put(stream, Array.from({ length: 30 }, (_, i) => ({
        key: `k${from + i}`, data: Buffer.from(JSON.stringify({ n: from + i, pad })) })));
    }
    const config = kinesisConfig(dir, stream, { changes: 'append', extra: '[performance]\nmemory_budget = "64MiB"\n' });
    runOnce(config, { AWS_ENDPOINT_URL_KINESIS: moto.url });
    const scan = runFloeOk(['table', 'scan', `${NAMESPACE}.backlog`, ...catalogOf(dir), '--format', 'csv']).stdout;
    const numbers = scan.trim().split('\n').slice(1).map((line) => Number(line.split(',')[0])).sort((a, b) => a - b);
    assert.deepEqual(numbers, Array.from({ length: 120 }, (_, i) => i), 'one --once run took every record');
    const files = ledgerFiles(config);
    assert.deepEqual(files.filter((f) => f.state !== 'committed').map((f) => f.uri), []);
    // The units one Discover handed out share its discovered_at_ms. A poll is a
    // quarter of the bound, so a Discover stops within 8 MiB + 2 MiB (and one record).
    const perDiscover = new Map();
    for (const f of files) perDiscover.set(f.discovered_at_ms, (perDiscover.get(f.discovered_at_ms) ?? 0) + f.size);
    const bound = (8 << 20) + (2 << 20) + 100_100;
    for (const [at, bytes] of perDiscover) {
      assert.ok(bytes <= bound, `the Discover at ${at} read ${bytes} bytes, over ${bound}: ${JSON.stringify(files)}`);
    }
    assert.ok(perDiscover.size >= 2, 'the backlog took more than one Discover');
  });
