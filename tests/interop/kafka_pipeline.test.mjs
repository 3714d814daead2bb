// `floe run CONFIG` with discovery = "kafka": Debezium change events (JSON
// converter, with and without schemas) consumed from the test broker
// (tests/tools/kafka_mock_broker.c, produced to with kcat) into Iceberg
// tables, compared by key with the DuckDB oracle over the producer's dump
// (tests/tools/debezium.mjs: per key the change with the greatest source
// position, then the greatest offset; deletes absent).
// - customers (3 partitions) and orders (2), both JSON forms, two seeds: one
//   --once run equals the oracle, the table's columns are the row image's
//   (plus __source_ts_ms and __kafka_offset), tombstones leave no dead
//   letter, and the ledger's stream ranges cover every offset exactly once.
//   A separate test compares the typed columns (decimals, timestamps, dates,
//   doubles) of the wrapped "json" form with the dump's renderings.
// - two rounds (topic_pattern, a decoy topic it does not match): the second
//   --once run reads only the new records, a third reads nothing.
// - changes = "append": plain JSON events over three --once rounds, each
//   exactly once with its kafka struct (topic, partition, offset, timestamp,
//   key) and inferred types, read from the live data files by hyparquet.
// - a lost ledger after compaction and expiry removed every ingest
//   snapshot: the table's floe.stream-ends resume the stream (append events,
//   each exactly once).
// - a steady stream (40 produce calls over 4 s) under a continuous run with
//   interval 1s commits about once a second, not once per fetch.
// - no [merge] keys (json, json-schemaless, avro): the record key keys the
//   table over two --once runs (the second takes the table's recorded key);
//   records without a key or with an undecodable one are dead letters
//   naming topic, partition and offset.
// - dead letters: garbage bytes, `not json` and a JSON array among good
//   records land in <table>__dead_letter with their offsets; the rest lands.
// - kill -9 of continuous runs at seeded random moments, then --once.
// - the (only) broker down for 3 s under a continuous run: it keeps going
//   and catches up. kcat cannot produce while every broker is down (it
//   terminates), so records are produced just before the outage (a backlog
//   floe is reading when the broker goes) and right after it.
//
// - Fetch, ListOffsets and Metadata requests answered with injected errors
//   (rd_kafka_mock_push_request_errors) while a continuous run reads a
//   backlog: it keeps going, and the table equals the oracle, no key twice,
//   every offset committed once.
//
// Env: FLOE_BIN, FLOE_KAFKA_MOCK_BROKER (or the broker beside FLOE_BIN's build
// directory), FLOE_KAFKA_KILLS (default 20), FLOE_KAFKA_SEED (default 20261201),
// FLOE_KEEP_TEMP.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startKafka, produce, highWatermark, kafkaToolsMissing } from '../tools/kafka.mjs';
import { generateChanges, produceChanges, oracle } from '../tools/debezium.mjs';
import { catalogOf, compareByKey, scanZoneTable, writeZoneConfig } from '../tools/landing_zones.mjs';
import { FLOE, ledgerFiles, logTail, runFloe, runFloeOk, skipWithoutFloe, startDaemon } from '../tools/pipeline_oracle.mjs';
import { openDuckDB } from '../tools/readers.mjs';
import { hyparquetRows } from '../tools/change_feed_oracle.mjs';
// Seeded (mulberry32), so a failing kill schedule can be replayed with its seed.
import { makeRng } from '../tools/random_parquet.mjs';

const missing = kafkaToolsMissing();
const KILLS = Number(process.env.FLOE_KAFKA_KILLS ?? 20);
const SEED = Number(process.env.FLOE_KAFKA_SEED ?? 20261201);

let db;
let work;
before(async () => {
  if (FLOE && !missing) db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-kafka-pipeline-'));
});
after(() => {
  db?.close();
  if (work && !process.env.FLOE_KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
});

// True (and the test skipped, saying why) without floe or the Kafka tools.
function skipped(t) {
  if (skipWithoutFloe(t)) return true;
  if (missing) {
    t.skip(`skipped: ${missing}`);
    return true;
  }
  return false;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The schema registry stub as its own process: floe asks it for writer
// schemas while this process waits in spawnSync, so it cannot serve them
// from here. -> { url, close() }.
// `port` and `schemasFile` (the stub's --port and --schemas) bring a
// registry back where it was, with the same ids.
async function startRegistryProcess({ port, schemasFile } = {}) {
  const args = [path.join(import.meta.dirname, '../tools/schema_registry_stub.mjs')];
  if (port) args.push('--port', String(port));
  if (schemasFile) args.push('--schemas', schemasFile);
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const bound = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /ready (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`the schema registry stub exited (${code}) before it was ready`)));
  });
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () => new Promise((resolve) => {
      child.once('exit', resolve);
      child.stdin.end();
    }),
  };
}
const NAMESPACE = 'inventory';
const TOPIC = { customers: 'dbserver1.inventory.customers', orders: 'mysqlserver.shop.orders' };
const KEY = { customers: 'id', orders: 'order_id' };
// Columns whose rendering is plain whatever the JSON form: ints, strings
// (UUIDs, JSON text and enums are strings in both forms), booleans.
const PLAIN = {
  customers: ['id', 'first_name', 'last_name', 'email', 'external_id', 'prefs', 'active', 'level', 'notes', 'phone'],
  orders: ['order_id', 'customer_id', 'status', 'quantity', 'coupon'],
};
// Columns only the schema of the wrapped form types: decimals (fixed and
// variable scale), micro/milli/zoned timestamps, dates, doubles.
const TYPED = {
  customers: ['balance', 'score', 'created_at', 'birth_date', 'updated_at'],
  orders: ['amount', 'order_time', 'weight', 'shipped_on'],
};
const ORDERING_COLUMNS = ['__source_ts_ms', '__kafka_offset'];
const DEAD_LETTER_COLUMNS = ['topic', 'partition', 'offset', 'timestamp', 'key', 'value', 'error'];

// A Kafka pipeline under `dir`: `topics` is the [source] line naming them.
// `registry`: the schema registry's URL for format = "avro".
// `keys: false` leaves [merge] keys out: the record key's fields are the key.
function kafkaConfig(dir, bootstrap, { table = 'customers', topics, source = '', extra = '', name = 'cdc', registry, keys = true } = {}) {
  return writeZoneConfig(dir, `[source]
discovery = "kafka"
uri = "kafka://${bootstrap}"
${topics ?? `topics = ["${TOPIC[table]}"]`}
${registry ? `format = "avro"\nschema_registry = "${registry}"` : 'format = "json"'}
changes = "debezium"
${source}
[target]
namespace = "${NAMESPACE}"
[merge]
${keys ? `keys = ["${KEY[table]}"]` : ''}
${extra}`, { name });
}

const CONTINUOUS = '[trigger]\ninterval = "1s"\nmax_records_per_batch = 200\n';

// What a floe run said, for assertion messages (the tail of long output).
function said(run) {
  const tail = (s) => (s && s.length > 6000 ? `...${s.slice(-6000)}` : s ?? '');
  return `exit ${run.status}${run.signal ? ` (signal ${run.signal})` : ''}\n--- stderr\n${tail(run.stderr)}\n--- stdout\n${tail(run.stdout)}`;
}

// `floe run CONFIG --once`, bounded: a hang is reported with its output.
function runOnce(config) {
  const result = spawnSync(FLOE, ['run', config, '--once'], { encoding: 'utf8', timeout: 90_000, maxBuffer: 64 << 20 });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

function assertRunOk(run, what) {
  assert.equal(run.status, 0, `${what}: floe run --once did not exit 0:\n${said(run)}`);
}

// The oracle's rows as Map key -> { column: text or null } on `columns`.
async function expectedRows(dumpPath, table, columns) {
  const rows = new Map();
  for (const { row } of await oracle(db, dumpPath, table)) {
    const picked = {};
    for (const c of columns) picked[c] = row[c] == null ? null : String(row[c]);
    rows.set(String(row[KEY[table]]), picked);
  }
  return rows;
}

// Every column any row image had (the oracle fills the missing ones).
async function imageColumns(dumpPath, table) {
  const rows = await oracle(db, dumpPath, table);
  return rows.length ? Object.keys(rows[0].row).sort() : [];
}

const scanTable = (dir, table) => scanZoneTable(dir, `${NAMESPACE}.${table}`, [KEY[table]]);

function tablesOf(dir) {
  const run = runFloe(['table', 'list', NAMESPACE, ...catalogOf(dir)]);
  return `${run.stdout}\n${run.stderr}`;
}

// Writes the concatenated dumps as one file for the oracle.
function writeDump(file, ...dumps) {
  fs.writeFileSync(file, dumps.flat().map((d) => JSON.stringify(d)).join('\n') + '\n');
  return file;
}

async function watermarks(bootstrap, topic, partitions) {
  const marks = new Map();
  for (let p = 0; p < partitions; ++p) marks.set(`${topic}/${p}`, await highWatermark(bootstrap, topic, p));
  return marks;
}

// The ledger's Kafka units: { uri, state, topic, partition, first, last }.
function kafkaUnits(config) {
  return ledgerFiles(config).map((f) => {
    const m = /^kafka:\/\/(.+)\/(\d+)\/(\d+)-(\d+)$/.exec(f.uri);
    return { uri: f.uri, state: f.state, reason: f.reason, parsed: !!m,
      topic: m?.[1], partition: m && Number(m[2]), first: m && Number(m[3]), last: m && Number(m[4]) };
  });
}

// Problems with the ledger: every unit committed, and per partition of
// `marks` (topic/partition -> high watermark) the committed ranges cover
// offsets 0 .. watermark-1 exactly once (no gap, no overlap), no others.
function coverageProblems(units, marks) {
  const problems = [];
  const byPartition = new Map();
  for (const u of units) {
    if (!u.parsed) problems.push(`ledger unit ${u.uri} is not kafka://<topic>/<partition>/<first>-<last>`);
    else if (!marks.has(`${u.topic}/${u.partition}`)) problems.push(`ledger unit ${u.uri}: not a partition this pipeline reads`);
    if (u.state !== 'committed') problems.push(`ledger unit ${u.uri} is ${u.state}${u.reason ? ` (${u.reason})` : ''}`);
    if (!u.parsed || u.state !== 'committed') continue;
    const key = `${u.topic}/${u.partition}`;
    byPartition.set(key, [...(byPartition.get(key) ?? []), u]);
  }
  for (const [key, mark] of marks) {
    const ranges = (byPartition.get(key) ?? []).sort((a, b) => a.first - b.first);
    let next = 0;
    for (const r of ranges) {
      if (r.first > next) problems.push(`${key}: offsets ${next}-${r.first - 1} in no committed unit`);
      if (r.first < next) problems.push(`${key}: ${r.uri} overlaps offsets read before (next expected ${next})`);
      if (r.last < r.first) problems.push(`${key}: ${r.uri} is an empty range`);
      next = Math.max(next, r.last + 1);
    }
    if (next !== mark) problems.push(`${key}: committed units end at offset ${next - 1}, the high watermark is ${mark}`);
  }
  return problems.slice(0, 15);
}

// ------------------------------------------------------------ one run per table, form and seed

const typedCases = [];

for (const [table, partitions] of [['customers', 3], ['orders', 2]]) {
  for (const format of ['json', 'json-schemaless', 'avro']) {
    for (const seed of [1, 2]) {
      test(`${table} (${partitions} partitions), ${format}, seed ${seed}: one --once run equals the oracle by key`, async (t) => {
        if (skipped(t)) return;
        const dir = fs.mkdtempSync(path.join(work, `${table}-${format}-${seed}-`));
        const kafka = await startKafka({ topics: [[TOPIC[table], partitions]] });
        // Avro records carry their writer schema's id in the registry stub.
        const registry = format === 'avro' ? await startRegistryProcess() : null;
        try {
          const generated = generateChanges(table, { seed, partitions });
          const dumpPath = path.join(dir, 'dump.jsonl');
          await produceChanges(kafka.bootstrap, TOPIC[table], generated,
            { format, dumpPath, partitions, registry: registry?.url });
          const marks = await watermarks(kafka.bootstrap, TOPIC[table], partitions);
          const config = kafkaConfig(dir, kafka.bootstrap, { table, registry: registry?.url });
          const run = runOnce(config);
          assertRunOk(run, 'the run');

          const actual = scanTable(dir, table);
          assert.deepEqual(actual.duplicates, [], 'keys twice in the table');
          const expected = await expectedRows(dumpPath, table, PLAIN[table]);
          assert.ok(expected.size > 3, `only ${expected.size} rows expected: the test proves little`);
          assert.deepEqual(compareByKey(expected, actual.rows, { label: `${NAMESPACE}.${table}`, limit: 15 }), []);

          // The table's columns: the row image's, plus the ordering columns.
          const wantColumns = [...await imageColumns(dumpPath, table), ...ORDERING_COLUMNS].sort();
          assert.deepEqual([...actual.columns].sort(), wantColumns, 'table columns');

          // Tombstones (one per delete) are skipped silently: no dead letter.
          assert.ok(generated.events.some((e) => e.op == null), 'the stream has tombstones');
          assert.doesNotMatch(tablesOf(dir), new RegExp(`${table}__dead_letter`), 'tombstones went to the dead letter table');

          assert.deepEqual(coverageProblems(kafkaUnits(config), marks), [], 'ledger');
          if (format !== 'json-schemaless') typedCases.push({ table, seed, format, dir, dumpPath });
        } finally {
          await registry?.close();
          await kafka.stop();
        }
      });
    }
  }
}

// Kept apart so a rendering difference does not hide the checks above:
// the wrapped form's schema types these columns, and floe renders them as
// the dump's row_text does (decimals with their scale, timestamps with 3/6
// fraction digits and "Z" when adjusted to UTC, dates, doubles).
test('formats json and avro: decimals, timestamps, dates and doubles equal the dump\'s renderings (typed columns)', async (t) => {
  if (skipped(t)) return;
  for (const format of ['json', 'avro']) {
    if (!typedCases.some((c) => c.format === format)) assert.fail(`no format "${format}" run above succeeded: nothing to compare`);
  }
  const problems = [];
  // Iceberg timestamps hold microseconds: a millisecond Debezium timestamp
  // (io.debezium.time.Timestamp) reads back with 6 fraction digits, the same instant.
  const asMicros = (v) => (v == null ? v : v.replace(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})(Z?)$/, '$1000$2'));
  for (const { table, seed, format, dir, dumpPath } of typedCases) {
    const expected = await expectedRows(dumpPath, table, TYPED[table]);
    for (const row of expected.values()) for (const c of Object.keys(row)) row[c] = asMicros(row[c]);
    problems.push(...compareByKey(expected, scanTable(dir, table).rows, { label: `${table} ${format} seed ${seed}`, limit: 8 }));
  }
  assert.deepEqual(problems, []);
});

test('the schema registry not answering: a --once run fails in one retry time, naming it, and commits nothing; the next run lands it all',
  async (t) => {
    if (skipped(t)) return;
    const dir = fs.mkdtempSync(path.join(work, 'registry-away-'));
    const kafka = await startKafka({ topics: [[TOPIC.customers, 3]] });
    let registry = await startRegistryProcess();
    try {
      const generated = generateChanges('customers', { seed: 3, partitions: 3 });
      const dumpPath = path.join(dir, 'dump.jsonl');
      await produceChanges(kafka.bootstrap, TOPIC.customers, generated,
        { format: 'avro', dumpPath, partitions: 3, registry: registry.url });
      // What the registry holds, in id order, to bring it back with the same ids.
      const url = registry.url;
      const held = [];
      for (const subject of await (await fetch(`${url}/subjects`)).json()) {
        for (const version of await (await fetch(`${url}/subjects/${encodeURIComponent(subject)}/versions`)).json()) {
          const entry = await (await fetch(`${url}/subjects/${encodeURIComponent(subject)}/versions/${version}`)).json();
          held.push({ id: entry.id, subject, schema: entry.schema });
        }
      }
      held.sort((a, b) => a.id - b.id);
      const schemasFile = path.join(dir, 'registry.json');
      fs.writeFileSync(schemasFile, JSON.stringify(held));
      await registry.close();
      registry = null;
      // A registry that accepts connections and never answers (the kernel
      // accepts them while this process waits in spawnSync).
      const port = Number(new URL(url).port);
      const hole = net.createServer(() => {});
      await new Promise((resolve) => hole.listen(port, '127.0.0.1', resolve));
      const config = kafkaConfig(dir, kafka.bootstrap, { registry: url });
      const started = Date.now();
      const away = runOnce(config);
      const seconds = (Date.now() - started) / 1000;
      assert.notEqual(away.status, 0, `the run succeeded without its registry:\n${said(away)}`);
      assert.match(away.stderr, /schema registry http:\/\/127\.0\.0\.1:\d+/, said(away));
      // One unit waits out the client's retries; the other two fail at once.
      assert.ok(seconds < 60, `the run took ${seconds.toFixed(1)} s to give up (a unit each waiting out the retries?)`);
      assert.doesNotMatch(tablesOf(dir), /customers__dead_letter/, 'records were set aside for the registry');
      await new Promise((resolve) => {
        hole.close(resolve);
      });

      // The registry back on its port, with the same schemas and ids.
      registry = await startRegistryProcess({ port, schemasFile });
      const back = runOnce(config);
      assertRunOk(back, 'the run with the registry back');
      const actual = scanTable(dir, 'customers');
      const expected = await expectedRows(dumpPath, 'customers', PLAIN.customers);
      assert.deepEqual(compareByKey(expected, actual.rows, { label: `${NAMESPACE}.customers`, limit: 15 }), []);
    } finally {
      await registry?.close();
      await kafka.stop();
    }
  });

// ------------------------------------------------------------ two rounds

test('two --once rounds (topic_pattern): the second reads only the new records, a third reads nothing', async (t) => {
  if (skipped(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'rounds-'));
  const topic = TOPIC.customers;
  const decoy = 'dbserver1.sales.customers';
  const kafka = await startKafka({ topics: [[topic, 3], [decoy, 1]] });
  try {
    // The decoy does not match the pattern: its rows would corrupt inventory.customers.
    await produceChanges(kafka.bootstrap, decoy, generateChanges('customers', { seed: 99, partitions: 1, changes: 60 }),
      { format: 'json', partitions: 1 });
    const generated = generateChanges('customers', { seed: 3, partitions: 3 });
    const half = Math.floor(generated.events.length / 2);
    const first = { table: generated.table, events: generated.events.slice(0, half) };
    const second = { table: generated.table, events: generated.events.slice(half) };
    assert.ok(second.events.some((e) => e.redelivered), 'the second half re-delivers older changes');

    const dump1 = await produceChanges(kafka.bootstrap, topic, first, { format: 'json', partitions: 3 });
    const marks1 = await watermarks(kafka.bootstrap, topic, 3);
    // TOML "dbserver1\\.inventory\\..*" is the regex dbserver1\.inventory\..*
    const config = kafkaConfig(dir, kafka.bootstrap, { topics: 'topic_pattern = "dbserver1\\\\.inventory\\\\..*"' });
    const run1 = runOnce(config);
    assertRunOk(run1, 'round 1');
    let expected = await expectedRows(writeDump(path.join(dir, 'dump1.jsonl'), dump1), 'customers', PLAIN.customers);
    let actual = scanTable(dir, 'customers');
    assert.deepEqual(actual.duplicates, [], 'round 1: keys twice');
    assert.deepEqual(compareByKey(expected, actual.rows, { label: 'round 1', limit: 15 }), []);
    const units1 = kafkaUnits(config);
    assert.deepEqual(coverageProblems(units1, marks1), [], 'round 1 ledger');

    const dump2 = await produceChanges(kafka.bootstrap, topic, second, { format: 'json', partitions: 3 });
    const marks2 = await watermarks(kafka.bootstrap, topic, 3);
    const run2 = runOnce(config);
    assertRunOk(run2, 'round 2');
    t.diagnostic(`round 2 said: ${(run2.stdout + run2.stderr).trim().split('\n').slice(-6).join(' | ')}`);
    expected = await expectedRows(writeDump(path.join(dir, 'dump.jsonl'), dump1, dump2), 'customers', PLAIN.customers);
    actual = scanTable(dir, 'customers');
    assert.deepEqual(actual.duplicates, [], 'round 2: keys twice');
    assert.deepEqual(compareByKey(expected, actual.rows, { label: 'round 2', limit: 15 }), []);

    // Round 2 read only what round 1 had not: round 1's units are still
    // there, the new ones start at or after round 1's watermarks, and
    // together they cover every offset once.
    const units2 = kafkaUnits(config);
    const uris2 = new Set(units2.map((u) => u.uri));
    for (const u of units1) assert.ok(uris2.has(u.uri), `round 1's unit ${u.uri} is gone from the ledger`);
    const uris1 = new Set(units1.map((u) => u.uri));
    for (const u of units2.filter((x) => !uris1.has(x.uri))) {
      const mark = marks1.get(`${u.topic}/${u.partition}`);
      assert.ok(mark !== undefined && u.first >= mark,
        `round 2's unit ${u.uri} re-reads offsets before round 1's watermark ${mark}`);
    }
    assert.ok(units2.length > units1.length, 'round 2 added no ledger unit');
    assert.deepEqual(coverageProblems(units2, marks2), [], 'round 2 ledger');

    // floe files --lag: every partition of the matched topic committed up to its high watermark; the decoy is not listed.
    const lag = runFloe(['files', config, '--lag', '--format', 'jsonl']);
    assert.equal(lag.status, 0, lag.stderr);
    const lagRows = lag.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lagRows.map((r) => [r.topic, r.partition, r.committed, r.high, r.lag]),
      [0, 1, 2].map((p) => [topic, p, marks2.get(`${topic}/${p}`), marks2.get(`${topic}/${p}`), 0]), 'floe files --lag');

    // Nothing new: a third run reads nothing and changes nothing.
    const run3 = runOnce(config);
    assertRunOk(run3, 'round 3');
    assert.deepEqual(kafkaUnits(config).map((u) => u.uri).sort(), [...uris2].sort(), 'round 3 changed the ledger');
    const after3 = scanTable(dir, 'customers');
    assert.deepEqual(compareByKey(expected, after3.rows, { label: 'round 3', limit: 15 }), []);
  } finally {
    await kafka.stop();
  }
});

// ------------------------------------------------------------ dead letters

test('records that are not JSON objects land in <table>__dead_letter with their offsets; the good ones land', async (t) => {
  if (skipped(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'dead-letter-'));
  const topic = TOPIC.customers;
  const kafka = await startKafka({ topics: [[topic, 3]] });
  try {
    const generated = generateChanges('customers', { seed: 4, partitions: 3 });
    const p0 = generated.events.filter((e) => e.partition === 0);
    const rest = generated.events.filter((e) => e.partition !== 0);
    const bad = [
      { key: 'bad-garbage', value: Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0xff, 0x7b, 0x22]) },
      { key: null, value: Buffer.from('not json') },
      { key: '{"id":999}', value: Buffer.from('[1,2,3]') },
    ];
    const dumps = [];
    const cut = (i) => Math.floor((p0.length * i) / 4);
    for (let i = 0; i < 4; ++i) {
      dumps.push(await produceChanges(kafka.bootstrap, topic, { table: generated.table, events: p0.slice(cut(i), cut(i + 1)) },
        { format: 'json', partitions: 3 }));
      if (i < 3) {
        bad[i].offset = await highWatermark(kafka.bootstrap, topic, 0);
        await produce(kafka.bootstrap, topic, 0, [bad[i]]);
      }
    }
    dumps.push(await produceChanges(kafka.bootstrap, topic, { table: generated.table, events: rest },
      { format: 'json', partitions: 3 }));
    assert.ok(bad[0].offset > 0 && bad[2].offset < (await highWatermark(kafka.bootstrap, topic, 0)) - 1,
      'the bad records sit between good ones');
    const marks = await watermarks(kafka.bootstrap, topic, 3);
    const config = kafkaConfig(dir, kafka.bootstrap);
    const run = runOnce(config);
    assertRunOk(run, 'the run with 3 bad records');

    const letters = scanZoneTable(dir, `${NAMESPACE}.customers__dead_letter`, ['offset']);
    assert.deepEqual([...letters.columns].sort(), [...DEAD_LETTER_COLUMNS].sort(), 'dead letter columns');
    assert.deepEqual(letters.duplicates, [], 'an offset twice in the dead letter table');
    assert.deepEqual([...letters.rows.keys()].sort(), bad.map((b) => String(b.offset)).sort(), 'dead letter offsets');
    for (const b of bad) {
      const row = letters.rows.get(String(b.offset));
      const where = `dead letter at offset ${b.offset} (${JSON.stringify(row)})`;
      assert.equal(row.topic, topic, where);
      assert.equal(row.partition, '0', where);
      assert.equal(row.key, b.key == null ? null : Buffer.from(b.key).toString('base64'), `${where}: key`);
      assert.equal(row.value, b.value.toString('base64'), `${where}: value`);
      assert.ok(row.error && row.error.trim() !== '', `${where}: no error text`);
      assert.ok(row.timestamp, `${where}: no timestamp`);
    }

    const expected = await expectedRows(writeDump(path.join(dir, 'dump.jsonl'), ...dumps), 'customers', PLAIN.customers);
    const actual = scanTable(dir, 'customers');
    assert.deepEqual(actual.duplicates, [], 'keys twice');
    assert.deepEqual(compareByKey(expected, actual.rows, { label: `${NAMESPACE}.customers`, limit: 15 }), []);
    assert.deepEqual(coverageProblems(kafkaUnits(config), marks), [], 'ledger');
  } finally {
    await kafka.stop();
  }
});

// Issue 16: without [merge] keys the Kafka record key (Debezium's key
// struct, in each format) names the key columns; records without a usable
// key are dead letters naming their offsets, the rest equals the oracle.
for (const format of ['json', 'json-schemaless', 'avro']) {
  test(`no [merge] keys, ${format}: the record key keys the table; keyless records are dead letters`, async (t) => {
    if (skipped(t)) return;
    const dir = fs.mkdtempSync(path.join(work, `record-key-${format}-`));
    const topic = TOPIC.customers;
    const kafka = await startKafka({ topics: [[topic, 3]] });
    const registry = format === 'avro' ? await startRegistryProcess() : null;
    try {
      const generated = generateChanges('customers', { seed: 3, partitions: 3 });
      const n = generated.events.length;
      const part = (from, to) => ({ table: generated.table, events: generated.events.slice(Math.floor(n * from), Math.floor(n * to)) });
      const options = { format, partitions: 3, registry: registry?.url };
      const dumps = [await produceChanges(kafka.bootstrap, topic, part(0, 0.6), options)];
      // Schemaless JSON values whose keys cannot key them: only among schemaless values (Avro values need
      // the registry's framing, and a schemaless value among Connect-envelope ones is a schema that cannot
      // join theirs, which dead-letters the older records of its range: not what this test is about).
      const bad = format !== 'json-schemaless' ? [] : [
        { key: null, why: /the record has no key/ },
        { key: 'not json', why: /its key is not a JSON object/ },
        { key: '[1,2]', why: /its key is not a JSON object/ },
      ];
      for (const [i, b] of bad.entries()) {
        b.value = JSON.stringify({ before: null, after: { id: 90000 + i }, source: { ts_ms: 1 }, op: 'c' });
        b.offset = await highWatermark(kafka.bootstrap, topic, 0);
        await produce(kafka.bootstrap, topic, 0, [{ key: b.key, value: b.value }]);
      }
      const marks = await watermarks(kafka.bootstrap, topic, 3);
      const config = kafkaConfig(dir, kafka.bootstrap, { registry: registry?.url, keys: false });
      assertRunOk(runOnce(config), 'the run without [merge] keys');

      const actual = scanTable(dir, 'customers');
      assert.deepEqual(actual.duplicates, [], 'keys twice in the table');
      const expected = await expectedRows(writeDump(path.join(dir, 'dump1.jsonl'), ...dumps), 'customers', PLAIN.customers);
      assert.deepEqual(compareByKey(expected, actual.rows, { label: `${NAMESPACE}.customers`, limit: 15 }), []);
      if (bad.length) {
        const letters = scanZoneTable(dir, `${NAMESPACE}.customers__dead_letter`, ['offset']);
        assert.deepEqual([...letters.rows.keys()].sort(), bad.map((b) => String(b.offset)).sort(), 'dead letter offsets');
        for (const b of bad) {
          const row = letters.rows.get(String(b.offset));
          assert.ok(row.error.includes(`${topic}[0] offset ${b.offset}: `), `the error names the record: ${row.error}`);
          assert.match(row.error, b.why, row.error);
        }
      }
      assert.deepEqual(coverageProblems(kafkaUnits(config), marks), [], 'ledger');
      // The key the table recorded keys the next run: the rest of the stream lands on it.
      dumps.push(await produceChanges(kafka.bootstrap, topic, part(0.6, 1), options));
      assertRunOk(runOnce(config), 'the second run');
      const both = writeDump(path.join(dir, 'dump2.jsonl'), ...dumps);
      const again = scanTable(dir, 'customers');
      assert.deepEqual(again.duplicates, [], 'keys twice after the second run');
      assert.deepEqual(compareByKey(await expectedRows(both, 'customers', PLAIN.customers), again.rows,
        { label: `${NAMESPACE}.customers`, limit: 15 }), []);
    } finally {
      await registry?.close();
      await kafka.stop();
    }
  });
}

test('a first batch of nothing but bad records waits for the table: the dead letters commit with its first rows', async (t) => {
  if (skipped(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'only-bad-'));
  const topic = TOPIC.customers;
  const kafka = await startKafka({ topics: [[topic, 1]] });
  try {
    // A range with no row at all (garbage, a tombstone, an array): before the
    // fix its dead letters were logged as kept and never committed, and
    // committing them alone would need a target table without columns.
    await produce(kafka.bootstrap, topic, 0, [{ key: 'k1', value: 'garbage' }, { key: 'k2', value: null },
      { key: 'k3', value: '[1]' }]);
    const config = kafkaConfig(dir, kafka.bootstrap);
    const first = runOnce(config);
    assertRunOk(first, 'the run over bad records only');
    // No table to commit them with yet: they wait, saying so, and are not lost.
    assert.match(first.stdout + first.stderr, /2 undecodable records wait: inventory\.customers does not exist yet/);
    assert.deepEqual(kafkaUnits(config).map((u) => u.state), ['discovered'], 'the range waits in the ledger');

    const generated = generateChanges('customers', { seed: 8, partitions: 1, changes: 80 });
    const dump = await produceChanges(kafka.bootstrap, topic, generated, { format: 'json', partitions: 1 });
    assertRunOk(runOnce(config), 'the run over good records');
    const letters = scanZoneTable(dir, `${NAMESPACE}.customers__dead_letter`, ['offset']);
    assert.deepEqual([...letters.rows.keys()].sort(), ['0', '2'], 'dead letter offsets');
    assert.equal(letters.rows.get('0').value, Buffer.from('garbage').toString('base64'));
    const expected = await expectedRows(writeDump(path.join(dir, 'dump.jsonl'), dump), 'customers', PLAIN.customers);
    const actual = scanTable(dir, 'customers');
    assert.deepEqual(compareByKey(expected, actual.rows, { label: `${NAMESPACE}.customers`, limit: 15 }), []);
    assert.equal(scanZoneTable(dir, `${NAMESPACE}.customers__dead_letter`, ['offset']).rows.size, 2,
      'the dead letters are kept once');
  } finally {
    await kafka.stop();
  }
});

// ------------------------------------------------------------ continuous runs

// A running `floe run CONFIG` (continuous) whose stderr is kept.
// Plain application events (not Debezium), appended: the shape of an
// events topic feeding a table of facts.
function appEvents(first, count, partitions) {
  const kinds = ['click', 'view', 'purchase'];
  const events = [];
  for (let i = first; i < first + count; ++i) {
    const value = { event_id: i, kind: kinds[i % 3], amount: i % 5 === 0 ? null : Number((i * 1.25).toFixed(2)),
      at: `2026-12-01T10:${String(i % 60).padStart(2, '0')}:00Z`, note: i % 7 === 0 ? 'Zürich – ünïcödé' : `n${i}` };
    events.push({ partition: i % partitions, key: `user-${i % 11}`, value: JSON.stringify(value), event: value });
  }
  return events;
}

async function produceEvents(bootstrap, topic, events, partitions) {
  for (let p = 0; p < partitions; ++p) {
    const mine = events.filter((e) => e.partition === p);
    for (const e of mine) e.offset = undefined;
    const start = await highWatermark(bootstrap, topic, p);
    await produce(bootstrap, topic, p, mine.map((e) => ({ key: e.key, value: e.value })));
    mine.forEach((e, i) => { e.offset = start + i; });
  }
}

test('changes = "append": plain JSON events land once each with their Kafka metadata over --once rounds (hyparquet reads them)',
  async (t) => {
    if (skipped(t)) return;
    const dir = fs.mkdtempSync(path.join(work, 'append-'));
    const topic = 'shop.events';
    const partitions = 2;
    const kafka = await startKafka({ topics: [[topic, partitions]] });
    try {
      const produced = appEvents(0, 300, partitions);
      await produceEvents(kafka.bootstrap, topic, produced, partitions);
      const config = writeZoneConfig(dir, `[source]
discovery = "kafka"
uri = "kafka://${kafka.bootstrap}"
topics = ["${topic}"]
format = "json"
changes = "append"
kafka_metadata = true
[target]
namespace = "${NAMESPACE}"`, { name: 'events' });
      assertRunOk(runOnce(config), 'the first round');
      const more = appEvents(300, 150, partitions);
      await produceEvents(kafka.bootstrap, topic, more, partitions);
      produced.push(...more);
      assertRunOk(runOnce(config), 'the second round');
      const third = runOnce(config);
      assertRunOk(third, 'the third round (nothing new)');

      // The live data files (append: no deletes), each read by hyparquet.
      // (icebird's own hyparquet 1.19 cannot read a required field inside
      // an optional struct, which DuckDB and hyparquet 1.33 read.)
      const listing = runFloeOk(['table', 'files', `${NAMESPACE}.events`, ...catalogOf(dir)]).stdout;
      const files = listing.trim().split('\n').slice(1).map((line) => line.split('\t'));
      assert.ok(files.length >= 2 && files.every((f) => f[1] === 'data'), listing);
      const rows = [];
      for (const [file] of files) rows.push(...(await hyparquetRows(file)).rows);
      assert.equal(rows.length, produced.length, 'every event once');
      const seen = new Map();
      for (const row of rows) {
        const where = `${row.kafka.partition}/${row.kafka.offset}`;
        assert.ok(!seen.has(where), `offset ${where} twice`);
        seen.set(where, row);
      }
      for (const e of produced) {
        const row = seen.get(`${e.partition}/${e.offset}`);
        const label = `event ${e.event.event_id} at ${e.partition}/${e.offset}`;
        assert.ok(row, `${label} is missing`);
        assert.equal(row.kafka.topic, topic, label);
        assert.equal(Buffer.from(row.kafka.key).toString(), e.key, `${label}: key`);
        assert.ok(row.kafka.timestamp, `${label}: timestamp`);
        assert.equal(Number(row.event_id), e.event.event_id, label);
        assert.equal(typeof row.event_id, 'bigint', `${label}: event_id is inferred as a long`);
        assert.equal(row.kind, e.event.kind, label);
        assert.equal(row.amount, e.event.amount, `${label}: amount`);
        assert.equal(row.note, e.event.note, `${label}: note`);
      }
      // The ledger's ranges cover each partition's offsets exactly once.
      const marks = await watermarks(kafka.bootstrap, topic, partitions);
      assert.deepEqual(coverageProblems(kafkaUnits(config), marks), [], 'ledger');
    } finally {
      await kafka.stop();
    }
  });

// Issue 16: "snapshot expiry must never lose the marker". Append events
// (a record read twice would be a second row) over three --once rounds;
// compaction and expiry leave one snapshot, none of the ingest ones; then
// the state directory (ledger, key index) is deleted and more events come:
// the next run resumes after what the table holds, every event once.
test('a lost ledger after compaction and expiry: the table\'s stream positions resume the stream, every event once',
  async (t) => {
    if (skipped(t)) return;
    const dir = fs.mkdtempSync(path.join(work, 'lost-ledger-'));
    const topic = 'shop.events';
    const partitions = 2;
    const kafka = await startKafka({ topics: [[topic, partitions]] });
    try {
      const config = writeZoneConfig(dir, `[source]
discovery = "kafka"
uri = "kafka://${kafka.bootstrap}"
topics = ["${topic}"]
format = "json"
changes = "append"
[target]
namespace = "${NAMESPACE}"
[maintenance]
enabled = false`, { name: 'events' });
      const produced = [];
      for (let round = 0; round < 3; ++round) {
        const events = appEvents(round * 100, 100, partitions);
        await produceEvents(kafka.bootstrap, topic, events, partitions);
        produced.push(...events);
        assertRunOk(runOnce(config), `round ${round}`);
      }
      const table = `${NAMESPACE}.events`;
      runFloeOk(['table', 'compact', table, ...catalogOf(dir), '--min-input-files', '2']);
      runFloeOk(['table', 'expire', table, ...catalogOf(dir), '--retain-last', '1', '--older-than', '0s']);
      assert.deepEqual(streamSnapshots(dir, 'events'), [], 'an ingest snapshot (floe.stream-ranges) survived expiry');

      fs.rmSync(path.join(dir, 'state'), { recursive: true, force: true });
      const more = appEvents(300, 120, partitions);
      await produceEvents(kafka.bootstrap, topic, more, partitions);
      produced.push(...more);
      const run = runOnce(config);
      assertRunOk(run, 'the run with a new ledger');
      assert.match(run.stderr + run.stdout, /stream positions past the ledger's/, 'the run says where it resumed');

      const actual = scanZoneTable(dir, table, ['event_id']);
      assert.deepEqual(actual.duplicates.slice(0, 10), [], 'events applied twice');
      assert.equal(actual.rows.size, produced.length, 'every event once');
      for (const e of produced) assert.ok(actual.rows.has(String(e.event.event_id)), `event ${e.event.event_id} is missing`);
      // The new ledger's ranges start where the table's positions ended.
      const units = kafkaUnits(config);
      assert.ok(units.length > 0 && units.every((u) => u.first >= 150), `ranges read again: ${JSON.stringify(units)}`);
    } finally {
      await kafka.stop();
    }
  });

test(`kill -9 of continuous runs (${KILLS} times), then --once: equals the oracle, no key twice`, async (t) => {
  if (skipped(t)) return;
  const random = makeRng(SEED).next;
  const dir = fs.mkdtempSync(path.join(work, 'kill-'));
  const topic = TOPIC.customers;
  const kafka = await startKafka({ topics: [[topic, 3]] });
  try {
    // Schemaless: ~3700 records of the wrapped form exceed the mock's ~5 MB per partition.
    const generated = generateChanges('customers', { seed: 5, keys: 300, changes: 3000, partitions: 3 });
    const dumpPath = path.join(dir, 'dump.jsonl');
    await produceChanges(kafka.bootstrap, topic, generated, { format: 'json-schemaless', dumpPath, partitions: 3 });
    const marks = await watermarks(kafka.bootstrap, topic, 3);
    const config = kafkaConfig(dir, kafka.bootstrap, { extra: CONTINUOUS });

    let killed = 0;
    const outcomes = [];
    for (let i = 0; i < KILLS; ++i) {
      const delay = Math.floor(200 + random() * 1300);
      const daemon = startDaemon(config);
      const timer = setTimeout(() => daemon.child.kill('SIGKILL'), delay);
      const exit = await daemon.exited;
      clearTimeout(timer);
      if (exit.signal === 'SIGKILL') ++killed;
      else assert.fail(`continuous run ${i} (to be killed after ${delay} ms) exited by itself: ${JSON.stringify(exit)}\n${logTail(daemon.log)}`);
      outcomes.push(`${delay}ms`);
    }
    let unitsUnderKills = 0;
    try {
      unitsUnderKills = kafkaUnits(config).filter((u) => u.state === 'committed').length;
    } catch (e) {
      t.diagnostic(`floe files after the kills: ${e.message.split('\n')[0]}`);
    }
    t.diagnostic(`${killed}/${KILLS} runs killed after ${outcomes.join(' ')}; units committed by them: ${unitsUnderKills}`);

    const final = runOnce(config);
    assertRunOk(final, 'the final run');
    const actual = scanTable(dir, 'customers');
    assert.deepEqual(actual.duplicates.slice(0, 10), [], 'keys twice in the table');
    const expected = await expectedRows(dumpPath, 'customers', PLAIN.customers);
    assert.deepEqual(compareByKey(expected, actual.rows, { label: `${NAMESPACE}.customers`, limit: 15 }), []);
    assert.deepEqual(coverageProblems(kafkaUnits(config), marks), [], 'ledger');
    // Last, so a failure here does not hide the checks above.
    assert.ok(KILLS === 0 || unitsUnderKills > 0, 'no killed run got as far as a commit: the kills proved little');
  } finally {
    await kafka.stop();
  }
});

// The snapshots of `table` that committed stream ranges, from its metadata file.
function streamSnapshots(dir, table) {
  const described = runFloe(['table', 'describe', `${NAMESPACE}.${table}`, ...catalogOf(dir)]);
  const m = /^metadata: (.+)$/m.exec(described.stdout ?? '');
  if (!m) return [];
  const metadata = JSON.parse(fs.readFileSync(m[1].trim().replace(/^file:\/\//, ''), 'utf8'));
  return (metadata.snapshots ?? []).filter((s) => s.summary?.['floe.stream-ranges']);
}

test('a steady stream under a continuous run (interval 1s) commits about once a second, not once per fetch',
  async (t) => {
    if (skipped(t)) return;
    const dir = fs.mkdtempSync(path.join(work, 'cadence-'));
    const topic = TOPIC.customers;
    const kafka = await startKafka({ topics: [[topic, 1]] });
    let daemon;
    try {
      const generated = generateChanges('customers', { seed: 8, keys: 200, changes: 1600, partitions: 1 });
      const ticks = 40;
      const n = generated.events.length;
      // Schemaless (~1 KB a record): the mock keeps ~5 MB a partition.
      const config = kafkaConfig(dir, kafka.bootstrap, { extra: '[trigger]\ninterval = "1s"\n' });
      daemon = startDaemon(config);
      const dumps = [];
      const started = Date.now();
      for (let i = 0; i < ticks; ++i) {
        const events = generated.events.slice(Math.floor((n * i) / ticks), Math.floor((n * (i + 1)) / ticks));
        dumps.push(await produceChanges(kafka.bootstrap, topic, { table: generated.table, events }, { format: 'json-schemaless', partitions: 1 }));
        await sleep(Math.max(0, started + (i + 1) * 100 - Date.now()));
      }
      const producing = (Date.now() - started) / 1000;
      const marks = await watermarks(kafka.bootstrap, topic, 1);
      const expected = await expectedRows(writeDump(path.join(dir, 'dump.jsonl'), ...dumps), 'customers', PLAIN.customers);
      let problems = ['not scanned yet'];
      for (const deadline = Date.now() + 30_000; Date.now() < deadline && problems.length > 0;) {
        await sleep(500);
        if (daemon.exit !== null) break;
        const actual = scanTable(dir, 'customers');
        problems = compareByKey(expected, actual.rows, { label: `${NAMESPACE}.customers`, limit: 10 });
      }
      assert.deepEqual(problems, [], `the table did not catch up:\n${logTail(daemon.log)}`);
      const snapshots = streamSnapshots(dir, 'customers');
      t.diagnostic(`${snapshots.length} snapshots over ${producing.toFixed(1)} s`);
      // One commit per interval while records flow, plus the first and the last.
      assert.ok(snapshots.length <= Math.ceil(producing) + 3,
        `${snapshots.length} snapshots for ${ticks} produce calls over ${producing.toFixed(1)} s with interval 1s`);
      assert.ok(snapshots.length >= 2, `${snapshots.length} snapshots: the stream was not read as it flowed`);
      daemon.child.kill('SIGTERM');
      assert.equal((await daemon.exited).code, 0, logTail(daemon.log));
      assert.deepEqual(coverageProblems(kafkaUnits(config), marks), [], 'ledger');
    } finally {
      if (daemon && daemon.exit === null) daemon.child.kill('SIGKILL');
      await kafka.stop();
    }
  });

// Waits up to 60 s, while the continuous run `daemon` lives, for the customers
// table in `dir` to equal `expected` with no key twice; returns what still
// differs (empty once it caught up).
async function customersCatchUp(dir, daemon, expected) {
  let problems = ['not scanned yet'];
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && daemon.exit === null) {
    await sleep(1000);
    const scan = runFloe(['table', 'scan', `${NAMESPACE}.customers`, ...catalogOf(dir), '--format', 'csv']);
    if (scan.status !== 0) {
      problems = [`scan: ${scan.stderr.trim()}`];
      continue;
    }
    const actual = scanTable(dir, 'customers');
    problems = [...compareByKey(expected, actual.rows, { label: `${NAMESPACE}.customers`, limit: 15 }),
      ...actual.duplicates.slice(0, 5).map((k) => `key ${k} twice`)];
    if (problems.length === 0) break;
  }
  return problems;
}

test('the broker down for 3 s under a continuous run: it keeps going and catches up', async (t) => {
  if (skipped(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'down-'));
  const topic = TOPIC.customers;
  const kafka = await startKafka({ brokers: 1, topics: [[topic, 3]] });
  let daemon;
  try {
    const generated = generateChanges('customers', { seed: 6, keys: 100, changes: 1200, partitions: 3 });
    const n = generated.events.length;
    const part = (from, to) => ({ table: generated.table, events: generated.events.slice(Math.floor(n * from), Math.floor(n * to)) });
    const dumps = [await produceChanges(kafka.bootstrap, topic, part(0, 0.4), { format: 'json', partitions: 3 })];
    const config = kafkaConfig(dir, kafka.bootstrap, { extra: CONTINUOUS });
    daemon = startDaemon(config);
    await sleep(1500);
    // A backlog floe is reading (200 records a batch) when the broker goes.
    dumps.push(await produceChanges(kafka.bootstrap, topic, part(0.4, 0.7), { format: 'json', partitions: 3 }));
    await kafka.command('down 1');
    await sleep(3000);
    await kafka.command('up 1');
    assert.equal(daemon.exit, null, `the run stopped while the broker was down:\n${logTail(daemon.log)}`);
    dumps.push(await produceChanges(kafka.bootstrap, topic, part(0.7, 1), { format: 'json', partitions: 3 }));
    const marks = await watermarks(kafka.bootstrap, topic, 3);
    const expected = await expectedRows(writeDump(path.join(dir, 'dump.jsonl'), ...dumps), 'customers', PLAIN.customers);

    // Catching up: the table equals the oracle within 60 s.
    const problems = await customersCatchUp(dir, daemon, expected);
    assert.equal(daemon.exit, null, `the run stopped:\n${logTail(daemon.log)}`);
    assert.deepEqual(problems, [], `not caught up 60 s after the broker came back; the run's log:\n${logTail(daemon.log)}`);
    assert.deepEqual(coverageProblems(kafkaUnits(config), marks), [], 'ledger');

    // SIGTERM ends a continuous run cleanly.
    daemon.child.kill('SIGTERM');
    const timer = setTimeout(() => daemon.child.kill('SIGKILL'), 20_000);
    const exit = await daemon.exited;
    clearTimeout(timer);
    assert.deepEqual(exit, { code: 0, signal: null }, `SIGTERM: ${logTail(daemon.log)}`);
  } finally {
    if (daemon && daemon.exit === null) {
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
    await kafka.stop();
  }
});

// Issue 16 faults: Fetch, ListOffsets and Metadata requests answered with
// errors (leader moves, timeouts, a lost connection, storage errors) while a
// continuous run reads a backlog: it keeps going, and the table ends equal
// to the oracle, no key twice, every offset in exactly one committed range.
test('injected Fetch, ListOffsets and Metadata errors under a continuous run: nothing lost or duplicated', async (t) => {
  if (skipped(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'request-errors-'));
  const topic = TOPIC.customers;
  const kafka = await startKafka({ brokers: 1, topics: [[topic, 3]] });
  let daemon;
  try {
    const generated = generateChanges('customers', { seed: 9, keys: 100, changes: 1200, partitions: 3 });
    const n = generated.events.length;
    const part = (from, to) => ({ table: generated.table, events: generated.events.slice(Math.floor(n * from), Math.floor(n * to)) });
    const dumps = [await produceChanges(kafka.bootstrap, topic, part(0, 0.4), { format: 'json', partitions: 3 })];
    const config = kafkaConfig(dir, kafka.bootstrap, { extra: CONTINUOUS });
    daemon = startDaemon(config);
    await sleep(1500);
    // A backlog (200 records a batch) the run is reading when the errors come.
    dumps.push(await produceChanges(kafka.bootstrap, topic, part(0.4, 0.7), { format: 'json', partitions: 3 }));
    for (const errors of [
      'errors Fetch 8 NOT_LEADER_FOR_PARTITION _TRANSPORT KAFKA_STORAGE_ERROR REQUEST_TIMED_OUT UNKNOWN_TOPIC_OR_PART _TRANSPORT LEADER_NOT_AVAILABLE NOT_LEADER_FOR_PARTITION',
      'errors ListOffsets 4 NOT_LEADER_FOR_PARTITION REQUEST_TIMED_OUT LEADER_NOT_AVAILABLE UNKNOWN_TOPIC_OR_PART',
      'errors Metadata 3 REQUEST_TIMED_OUT LEADER_NOT_AVAILABLE REQUEST_TIMED_OUT',
    ]) {
      await kafka.command(errors);
    }
    await sleep(4000);
    assert.equal(daemon.exit, null, `the run stopped under request errors:\n${logTail(daemon.log)}`);
    // What the run did not take is cleared, so the producer below is not refused.
    for (const api of ['Fetch', 'ListOffsets', 'Metadata']) await kafka.command(`clear ${api}`);
    dumps.push(await produceChanges(kafka.bootstrap, topic, part(0.7, 1), { format: 'json', partitions: 3 }));
    const marks = await watermarks(kafka.bootstrap, topic, 3);
    const expected = await expectedRows(writeDump(path.join(dir, 'dump.jsonl'), ...dumps), 'customers', PLAIN.customers);

    const problems = await customersCatchUp(dir, daemon, expected);
    assert.equal(daemon.exit, null, `the run stopped:\n${logTail(daemon.log)}`);
    assert.deepEqual(problems, [], `not caught up within 60 s; the run's log:\n${logTail(daemon.log)}`);
    assert.deepEqual(coverageProblems(kafkaUnits(config), marks), [], 'ledger');
    daemon.child.kill('SIGTERM');
    const timer = setTimeout(() => daemon.child.kill('SIGKILL'), 20_000);
    const exit = await daemon.exited;
    clearTimeout(timer);
    assert.deepEqual(exit, { code: 0, signal: null }, `SIGTERM: ${logTail(daemon.log)}`);
  } finally {
    if (daemon && daemon.exit === null) {
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
    await kafka.stop();
  }
});
