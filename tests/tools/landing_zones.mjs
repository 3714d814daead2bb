// Landing zones as users meet them, written by tools floe does not share
// code with: DuckDB (`COPY ... TO ... (FORMAT parquet)`) and arrow-rs
// (parquet-wasm's writeParquet), one file each in turn — and the DuckDB
// oracle of what a merge of them must leave.
//
// - dmsZone: AWS DMS's S3 target (<schema>/<table>/LOAD*.parquet full
//   loads, one without Op and one with Op = 'I', then dated CDC files with
//   Op I/U/D and AR_H_CHANGE_SEQ, changes spread over files out of order);
//   one table orders by the DMS timestamp column instead.
// - debeziumZone: Debezium change files flattened by ExtractNewRecordState
//   (__op c/u/d/r, __source_ts_ms, __lsn) under Hive region=... folders: a
//   snapshot file without __op, then change files whose events share
//   milliseconds (the LSN breaks ties) and land out of order.
// - oracleLatest: per key the change with the greatest ordering value,
//   deleted keys absent, every column rendered as text the way
//   rowsByKeyFromScanCsv renders floe's `table scan --format csv`.
import fs from 'node:fs';
import path from 'node:path';
import { Float64, Int64, Table as ArrowTable, tableToIPC, Utf8, vectorFromArray } from 'apache-arrow';
import { Table as WasmTable, writeParquet } from 'parquet-wasm';
import { parseCsv, runFloeOk } from './pipeline_oracle.mjs';
import { makeRng } from './random_parquet.mjs';
import { sqlString } from './readers.mjs';

const ident = (name) => `"${name.replace(/"/g, '""')}"`;

// columns: [{ name, type: 'BIGINT' | 'VARCHAR' | 'DOUBLE' }]; rows: arrays of JS values (null allowed).
function sqlLiteral(value, type) {
  if (value === null || value === undefined) return `CAST(NULL AS ${type})`;
  if (type === 'VARCHAR') return `CAST(${sqlString(value)} AS VARCHAR)`;
  return `CAST(${String(value)} AS ${type})`;
}

export async function writeWithDuckDB(db, file, columns, rows) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const names = columns.map((c) => ident(c.name)).join(', ');
  const values = rows.map((row) => `(${row.map((v, i) => sqlLiteral(v, columns[i].type)).join(', ')})`).join(',\n');
  await db.connection.run(
    `COPY (SELECT * FROM (VALUES ${values}) t(${names})) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION snappy)`);
}

const ARROW_TYPES = { BIGINT: () => new Int64(), VARCHAR: () => new Utf8(), DOUBLE: () => new Float64() };

export function writeWithArrowRs(file, columns, rows) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const vectors = {};
  columns.forEach((column, i) => {
    const values = rows.map((row) => {
      const v = row[i];
      if (v === null || v === undefined) return null;
      return column.type === 'BIGINT' ? BigInt(v) : v;
    });
    vectors[column.name] = vectorFromArray(values, ARROW_TYPES[column.type]());
  });
  const table = new ArrowTable(vectors);
  fs.writeFileSync(file, writeParquet(WasmTable.fromIPCStream(tableToIPC(table, 'stream'))));
}

// Writes each file of `files` ({ file, columns, rows }) with DuckDB and arrow-rs in turn.
export async function writeFiles(db, files) {
  for (let i = 0; i < files.length; ++i) {
    const { file, columns, rows } = files[i];
    if (i % 2 === 0) {
      await writeWithDuckDB(db, file, columns, rows);
    } else {
      writeWithArrowRs(file, columns, rows);
    }
  }
}

// A 35-digit AR_H_CHANGE_SEQ: a yyyyMMddHHmmss timestamp and a 21-digit counter.
function changeSeq(counter) {
  return `20240308${String(100000 + Math.floor(counter / 1000)).padStart(6, '0')}${String(counter).padStart(21, '0')}`;
}

// "2024-03-08 10:00:00.000123"-style DMS timestamps, microsecond steps.
function dmsTimestamp(micros) {
  const base = Date.UTC(2024, 2, 8, 10, 0, 0);
  const ms = base + Math.floor(micros / 1000);
  const d = new Date(ms);
  const pad = (n, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:` +
    `${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad((micros % 1_000_000), 6)}`;
}

// Random changes of `keys` keys: inserts of new or deleted keys, updates and deletes of live ones.
function randomChanges(rng, keys, count, image) {
  const alive = new Set();
  const changes = [];
  for (let i = 0; i < count; ++i) {
    const id = 1 + rng.int(keys);
    let op;
    if (!alive.has(id)) {
      op = 'insert';
      alive.add(id);
    } else if (rng.next() < 0.25) {
      op = 'delete';
      alive.delete(id);
    } else {
      op = 'update';
    }
    changes.push({ id, op, values: image(id, i) });
  }
  return changes;
}

// Spreads `changes` over `files` files at random: a later file often holds older changes.
function spread(rng, changes, files) {
  const buckets = Array.from({ length: files }, () => []);
  for (const change of changes) buckets[rng.int(files)].push(change);
  return buckets;
}

const DMS_TABLES = [
  { schema: 'hr', table: 'employee', extra: [{ name: 'name', type: 'VARCHAR' }, { name: 'salary', type: 'DOUBLE' }] },
  { schema: 'sales', table: 'orders', extra: [{ name: 'customer', type: 'VARCHAR' }, { name: 'amount', type: 'DOUBLE' }] },
  // Ordered by the DMS timestamp column (TimestampColumnName), no AR_H_CHANGE_SEQ.
  { schema: 'hr', table: 'shifts', byTimestamp: true, extra: [{ name: 'shift', type: 'VARCHAR' }] },
];

// Round 0: full loads and CDC files; round 1 (append: true): more CDC
// files, some of whose changes are older than ones already ingested.
export async function dmsZone(db, root, { seed = 1, round = 0, keys = 60 } = {}) {
  const rng = makeRng(seed * 7919 + round);
  const files = [];
  for (const spec of DMS_TABLES) {
    const dir = path.join(root, spec.schema, spec.table);
    const image = (id, i) => spec.extra.map((c) => (c.type === 'DOUBLE' ? Math.round((id * 13.25 + i) * 4) / 4
      : `${c.name}-${id}-${round}-${i}`));
    const ts = (n) => dmsTimestamp(round * 50_000_000 + n * 37);
    if (round === 0) {
      // LOAD00000001 without Op (and without AR_H_CHANGE_SEQ); LOAD00000002 with Op = 'I' and an empty sequence.
      const half = Math.floor(keys / 2);
      const base = [{ name: 'id', type: 'BIGINT' }, ...spec.extra];
      const load1 = [];
      const load2 = [];
      for (let id = 1; id <= keys; ++id) (id <= half ? load1 : load2).push(id);
      const loadColumns1 = spec.byTimestamp ? [...base, { name: 'dms_ts', type: 'VARCHAR' }] : base;
      files.push({ file: path.join(dir, 'LOAD00000001.parquet'), columns: loadColumns1,
        rows: load1.map((id) => [id, ...image(id, -1), ...(spec.byTimestamp ? [ts(0)] : [])]) });
      const loadColumns2 = [{ name: 'Op', type: 'VARCHAR' }, ...(spec.byTimestamp
        ? [] : [{ name: 'AR_H_CHANGE_SEQ', type: 'VARCHAR' }]), ...base, ...(spec.byTimestamp
        ? [{ name: 'dms_ts', type: 'VARCHAR' }] : [])];
      files.push({ file: path.join(dir, 'LOAD00000002.parquet'), columns: loadColumns2,
        rows: load2.map((id) => ['I', ...(spec.byTimestamp ? [] : [''])].concat([id, ...image(id, -1)],
          spec.byTimestamp ? [ts(1)] : [])) });
    }
    // CDC: the changes are numbered in commit order; files get them at random.
    const changes = randomChanges(rng, keys + 10, 90, image);
    // Even numbers in commit order; a later round adds late changes on odd
    // numbers of round 0's range, older than changes already ingested.
    const order = (n) => round * 100_000 + 10 + 2 * n;
    const cdcColumns = [{ name: 'Op', type: 'VARCHAR' },
      spec.byTimestamp ? { name: 'dms_ts', type: 'VARCHAR' } : { name: 'AR_H_CHANGE_SEQ', type: 'VARCHAR' },
      { name: 'id', type: 'BIGINT' }, ...spec.extra];
    // Every key of the full load is alive: the first change of such a key is an update or delete.
    changes.forEach((change, n) => {
      change.order = order(n);
      if (change.op === 'insert' && change.id <= keys && round === 0) change.op = 'update';
    });
    if (round > 0) {
      for (let n = 0; n < 12; ++n) {
        const id = 1 + rng.int(keys);
        changes.push({ id, op: rng.next() < 0.3 ? 'delete' : 'update', values: image(id, 1000 + n),
          order: 11 + 2 * rng.int(90) });
      }
    }
    const buckets = spread(rng, changes, 5);
    buckets.forEach((bucket, b) => {
      if (bucket.length === 0) return;
      const minute = String(10 + round * 10 + b).padStart(2, '0');
      const file = path.join(dir, '2024', '03', '08', `20240308-${minute}0000${String(b).padStart(3, '0')}.parquet`);
      files.push({ file, columns: cdcColumns, rows: bucket.map((c) => [
        c.op === 'insert' ? 'I' : c.op === 'update' ? 'U' : 'D',
        spec.byTimestamp ? ts(c.order) : changeSeq(c.order), c.id, ...c.values]) });
    });
  }
  await writeFiles(db, files);
  return files.map((f) => f.file);
}

// Debezium change files of inventory.customers under region folders and
// inventory.orders without; `round` 1 appends more change files.
export async function debeziumZone(db, root, { seed = 1, round = 0, keys = 40 } = {}) {
  const rng = makeRng(seed * 104729 + round);
  const files = [];
  const tables = [
    { table: 'customers', regions: ['eu', 'us'], extra: [{ name: 'first_name', type: 'VARCHAR' }, { name: 'email', type: 'VARCHAR' }] },
    { table: 'orders', regions: [null], extra: [{ name: 'quantity', type: 'BIGINT' }, { name: 'price', type: 'DOUBLE' }] },
  ];
  let lsn = round * 1_000_000;
  for (const spec of tables) {
    for (const region of spec.regions) {
      const dir = path.join(root, 'inventory', spec.table, ...(region ? [`region=${region}`] : []));
      const image = (id, i) => spec.extra.map((c) => (c.type === 'VARCHAR' ? `${c.name}-${region ?? ''}${id}-${round}-${i}`
        : c.type === 'DOUBLE' ? Math.round((id * 2.5 + i) * 4) / 4 : id * 3 + i));
      const base = [{ name: 'id', type: 'BIGINT' }, ...spec.extra];
      const order = [{ name: '__source_ts_ms', type: 'BIGINT' }, { name: '__lsn', type: 'BIGINT' }];
      if (round === 0) {
        // The initial snapshot, exported without __op: upserts ([merge] missing_operation = "upsert").
        const rows = [];
        for (let id = 1; id <= keys; ++id) rows.push([id, ...image(id, -1), 1_709_890_000_000, ++lsn]);
        files.push({ file: path.join(dir, 'snapshot-00000.parquet'), columns: [...base, ...order], rows });
      }
      // Several events share a millisecond; the LSN orders them.
      const changes = randomChanges(rng, keys + 8, 70, image);
      let ms = 1_709_890_100_000 + round * 100_000;
      changes.forEach((change, n) => {
        if (n % 4 === 0) ms += 1;
        change.ts = ms;
        change.lsn = ++lsn;
        if (change.op === 'insert' && change.id <= keys && round === 0) change.op = 'update';
        // A re-read row of an incremental snapshot: an 'r' is an upsert too.
        change.code = change.op === 'insert' ? (rng.next() < 0.2 ? 'r' : 'c') : change.op === 'update' ? 'u' : 'd';
      });
      if (round > 0) {
        // Late events of round 0's milliseconds with new LSNs: the timestamp decides, so they are older.
        for (let n = 0; n < 10; ++n) {
          const id = 1 + rng.int(keys);
          changes.push({ id, op: 'update', code: 'u', values: image(id, 1000 + n),
            ts: 1_709_890_100_000 + rng.int(15), lsn: ++lsn });
        }
      }
      const buckets = spread(rng, changes, 4);
      buckets.forEach((bucket, b) => {
        if (bucket.length === 0) return;
        files.push({ file: path.join(dir, `changes-${round}-${String(b).padStart(5, '0')}.parquet`),
          columns: [{ name: '__op', type: 'VARCHAR' }, ...base, ...order],
          rows: bucket.map((c) => [c.code, c.id, ...c.values, c.ts, c.lsn]) });
      });
    }
  }
  await writeFiles(db, files);
  return files.map((f) => f.file);
}

// Expected rows: Map key -> { column: text or null }. `keyColumns` form the
// key ("eu/7" for ["region", "id"]); `orderSql` the ordering expression
// (greatest wins); `deleteSql` true for a delete. Hive key=value folders
// become columns (DuckDB's hive_partitioning, values as text).
export async function oracleLatest(db, files, { keyColumns = ['id'], orderSql, deleteSql }) {
  const list = `[${files.map(sqlString).join(', ')}]`;
  const source = `(SELECT * FROM read_parquet(${list}, union_by_name = true, filename = true, ` +
    'hive_partitioning = true, hive_types_autocast = false))';
  const described = (await db.all(`DESCRIBE SELECT * FROM ${source}`)).filter((d) => d.column_name !== 'filename');
  const select = described.map((d) => `CAST(${ident(d.column_name)} AS VARCHAR) AS ${ident(d.column_name)}`);
  const sql = `
    WITH ranked AS (
      SELECT *, row_number() OVER (PARTITION BY ${keyColumns.map(ident).join(', ')} ORDER BY ${orderSql} DESC) AS rk
      FROM ${source})
    SELECT ${select.join(', ')} FROM ranked WHERE rk = 1 AND NOT (${deleteSql})`;
  const rows = new Map();
  for (const row of await db.all(sql)) rows.set(keyColumns.map((k) => row[k]).join('/'), row);
  return rows;
}

// `floe table scan --format csv` output keyed like oracleLatest; also duplicate keys.
export function rowsByKeyFromScanCsv(csv, keyColumns = ['id']) {
  const [header, ...records] = parseCsv(csv);
  const rows = new Map();
  const duplicates = [];
  for (const record of records) {
    const row = {};
    header.forEach((column, i) => { row[column] = record[i] === '' ? null : record[i]; });
    const key = keyColumns.map((k) => row[k]).join('/');
    if (rows.has(key)) duplicates.push(key);
    rows.set(key, row);
  }
  return { rows, duplicates, columns: header };
}

// Problems (at most `limit`) between expected and actual rows on the expected columns.
export function compareByKey(expected, actual, { limit = 10, label = 'floe' } = {}) {
  const problems = [];
  const push = (m) => { if (problems.length < limit) problems.push(m); };
  if (expected.size !== actual.size) push(`${label}: ${actual.size} rows, expected ${expected.size}`);
  for (const [key, want] of expected) {
    const got = actual.get(key);
    if (!got) {
      push(`${label}: key ${key} missing`);
      continue;
    }
    for (const [column, value] of Object.entries(want)) {
      const have = got[column] ?? null;
      const a = have === null ? '' : String(have);
      const b = value === null ? '' : String(value);
      // DuckDB and floe print doubles alike except for a trailing ".0".
      if (a !== b && a.replace(/\.0$/, '') !== b.replace(/\.0$/, '')) {
        push(`${label}: key ${key} column ${column}: got ${JSON.stringify(have)}, expected ${JSON.stringify(value)}`);
      }
    }
  }
  for (const key of actual.keys()) if (!expected.has(key)) push(`${label}: key ${key} should not be in the table`);
  return problems;
}

// `floe table` arguments for the SQLite catalog of a test pipeline in `dir`.
export const catalogOf = (dir) => ['--catalog', `sqlite://${path.join(dir, 'catalog.db')}`];

// A pipeline file for a landing zone: `body` ([source] and what else the
// test sets), then a SQLite catalog, warehouse and state under `dir`.
export function writeZoneConfig(dir, body, { name = 'landing', file = 'pipeline.toml' } = {}) {
  const config = path.join(dir, file);
  fs.writeFileSync(config, `name = "${name}"
${body}
[catalog]
type = "sql"
uri = "sqlite://${path.join(dir, 'catalog.db')}"
warehouse = "${path.join(dir, 'warehouse')}"
[state]
dir = "${path.join(dir, 'state', name)}"
`);
  return config;
}

// The rows of `table` in the catalog under `dir`, keyed (rowsByKeyFromScanCsv).
export function scanZoneTable(dir, table, keyColumns = ['id']) {
  const { stdout } = runFloeOk(['table', 'scan', table, ...catalogOf(dir), '--format', 'csv']);
  return rowsByKeyFromScanCsv(stdout, keyColumns);
}
