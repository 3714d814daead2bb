// Helpers for the end-to-end pipeline tests: run floe, build CDA exports,
// and compute the expected table state independently of floe.
//
// The oracle is DuckDB SQL straight over the source Parquet files of the
// committed folders (manifest.json decides which): per id the change with the
// greatest gwcbi___seqval_hex after left-padding to 32 digits, operation 3
// ("before" images) dropped, ids whose newest change is a delete absent.
// Values are compared as text: DuckDB renders its values with CAST(... AS
// VARCHAR) (timestamps as epoch microseconds), and floe's CSV is brought to
// the same form.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { icebergRead } from 'icebird';
import { readAvroRecords } from './avro_exact.mjs';
import { sqlString } from './readers.mjs';

export const FLOE = process.env.FLOE_BIN;

// Skips test `t` (saying why) when FLOE_BIN is unset or missing; true when skipped.
export function skipWithoutFloe(t) {
  if (!FLOE || !fs.existsSync(FLOE)) {
    t.skip('skipped: FLOE_BIN is not set or missing (build floe first)');
    return true;
  }
  return false;
}

// Runs floe synchronously; returns { status, stdout, stderr }.
export function runFloe(args, { timeoutMs = 300_000, env = {} } = {}) {
  const result = spawnSync(FLOE, args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 256 << 20,
    env: { ...process.env, ...env },
  });
  if (result.error) throw result.error;
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

// The last `lines` lines of a log, for assertion messages.
// Starts `floe run CONFIG --once` and SIGKILLs it after `delayMs` unless it ends first.
export function runAndKill(config, delayMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(FLOE, ['run', config, '--once', '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

export const logTail = (log, lines = 30) => log.trim().split('\n').slice(-lines).join('\n');

export function runFloeOk(args, options) {
  const result = runFloe(args, options);
  if (result.status !== 0) {
    throw new Error(`floe ${args.join(' ')} exited ${result.status}:\n${result.stderr}\n${result.stdout}`);
  }
  return result;
}

// A continuous `floe run CONFIG` in the background: { child, log (its stderr,
// the last 512 KiB once past 1 MiB), exit (null while it runs), exited (a
// promise of { code, signal }) }. `env` adds environment variables.
export function startDaemon(config, { env = {} } = {}) {
  const child = spawn(FLOE, ['run', config], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  const daemon = { child, log: '', exit: null };
  child.stderr.on('data', (chunk) => {
    daemon.log += chunk;
    if (daemon.log.length > 1 << 20) daemon.log = daemon.log.slice(-(1 << 19));
  });
  daemon.exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      daemon.exit = { code, signal };
      resolve(daemon.exit);
    });
  });
  return daemon;
}

// Starts a node tool that prints "ready <port>" (s3rver.mjs, fault_proxy.mjs,
// ...) and resolves to the port; the child goes into `children` (the caller
// kills them; each also exits when its stdin pipe closes).
export function startNodeTool(args, children) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start`)), 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /ready (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

// A pipeline.toml for a CDA export at `exportDir`, catalog and warehouse under `dir`.
// `target` adds lines to [target]; `extra` appends whole sections.
// A pipeline config with a SQLite catalog, warehouse and state in `dir`. The
// source is a CDA export at `exportDir` unless `source` gives the [source]
// table's lines; `file` names the config (default pipeline.toml).
// The SQL catalogs of test dirs whose config names one other than
// <dir>/catalog.db ({ uri, name }: writePipelineConfig's `catalog`), for catalogArgs.
const catalogsOfDirs = new Map();

// `catalog`: { uri, name } of a SQL catalog other than <dir>/catalog.db (e.g.
// PostgreSQL); `stateUri`: [state] uri (the ledger in PostgreSQL).
export function writePipelineConfig(dir, exportDir,
  { name = 'oracle', target = '', extra = '', source = null, file = 'pipeline.toml', catalog = null,
    stateUri = '' } = {}) {
  const config = path.join(dir, file);
  if (catalog) catalogsOfDirs.set(dir, catalog);
  fs.writeFileSync(config, `name = "${name}"
[source]
${source ?? `format = "cda"\nuri = "${exportDir}"`}
[catalog]
type = "sql"
uri = "${catalog ? catalog.uri : `sqlite://${path.join(dir, 'catalog.db')}`}"
${catalog ? `name = "${catalog.name}"` : ''}
warehouse = "${path.join(dir, 'warehouse')}"
[target]
namespace = "cda"
${target}
[state]
dir = "${path.join(dir, 'state')}"
${stateUri ? `uri = "${stateUri}"` : ''}
${extra}
`);
  return config;
}

export function catalogArgs(dir) {
  const catalog = catalogsOfDirs.get(dir);
  if (catalog) return ['--catalog', catalog.uri, '--catalog-name', catalog.name, '--warehouse', path.join(dir, 'warehouse')];
  return ['--catalog', `sqlite://${path.join(dir, 'catalog.db')}`, '--warehouse', path.join(dir, 'warehouse')];
}

// The Parquet files of `table` in committed folders, per manifest.json.
export function committedFiles(exportDir, table) {
  const manifest = JSON.parse(fs.readFileSync(path.join(exportDir, 'manifest.json'), 'utf8'));
  const entry = manifest[table];
  if (!entry) throw new Error(`table ${table} is not in ${exportDir}/manifest.json`);
  const last = BigInt(entry.lastSuccessfulWriteTimestamp);
  const files = [];
  for (const fingerprint of Object.keys(entry.schemaHistory)) {
    const fingerprintDir = path.join(exportDir, table, fingerprint);
    if (!fs.existsSync(fingerprintDir)) continue;
    for (const folder of fs.readdirSync(fingerprintDir)) {
      if (!/^\d+$/.test(folder) || BigInt(folder) > last) continue;
      const folderDir = path.join(fingerprintDir, folder);
      for (const name of fs.readdirSync(folderDir)) {
        if (name.endsWith('.parquet')) files.push(path.join(folderDir, name));
      }
    }
  }
  return files.sort();
}

export function exportTables(exportDir) {
  return Object.keys(JSON.parse(fs.readFileSync(path.join(exportDir, 'manifest.json'), 'utf8'))).sort();
}

const ident = (name) => `"${name.replace(/"/g, '""')}"`;

function renderExpression(column, type) {
  if (/^TIMESTAMP/.test(type)) return `CAST(epoch_us(${ident(column)}) AS VARCHAR)`;
  return `CAST(${ident(column)} AS VARCHAR)`;
}

// The CDA export files' current rows as DuckDB SQL (a subquery): per id the
// newest change (by seqval) unless it is a delete; `select` picks the columns.
export function currentRowsSql(files, select = '*') {
  const list = `[${files.map(sqlString).join(', ')}]`;
  const source = `read_parquet(${list}, union_by_name = true)`;
  return `
    WITH changes AS (SELECT * FROM ${source} WHERE gwcbi___operation IS DISTINCT FROM 3),
    ranked AS (
      SELECT *, row_number() OVER (
        PARTITION BY id ORDER BY lpad(lower(gwcbi___seqval_hex), 32, '0') DESC) AS floe_rank
      FROM changes)
    SELECT ${select} FROM ranked WHERE floe_rank = 1 AND gwcbi___operation <> 1`;
}

// Expected rows: Map id(string) -> { column: text or null }, plus column types.
export async function oracleRows(db, files) {
  if (files.length === 0) return { rows: new Map(), types: new Map() };
  const list = `[${files.map(sqlString).join(', ')}]`;
  const source = `read_parquet(${list}, union_by_name = true)`;
  const described = await db.all(`DESCRIBE SELECT * FROM ${source}`);
  const types = new Map(described.map((d) => [d.column_name, d.column_type]));
  const select = described.map((d) => `${renderExpression(d.column_name, d.column_type)} AS ${ident(d.column_name)}`);
  const sql = currentRowsSql(files, select.join(', '));
  const rows = new Map();
  for (const row of await db.all(sql)) rows.set(String(row.id), row);
  return { rows, types };
}

// RFC 4180 CSV -> array of arrays of strings.
export function parseCsv(text) {
  const records = [];
  let record = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') ++i;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else {
      field += c;
    }
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}

// "2025-12-01T00:00:00.123456Z" -> "1764547200123456" (epoch microseconds).
export function timestampToMicros(text) {
  const m = /^(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z?$/.exec(text);
  if (!m) return `<unparsable timestamp ${text}>`;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  const fraction = (m[7] ?? '').padEnd(9, '0');
  return String(BigInt(ms) * 1000n + BigInt(fraction.slice(0, 6)));
}

// The table's rows through `floe table scan --format csv`: Map id -> { column: text or null }.
// `catalog` replaces the local catalog arguments; `env` adds environment (S3 settings).
export function floeRows(dir, tableIdentifier, timestampColumns, { catalog = catalogArgs(dir), env = {} } = {}) {
  const { stdout } = runFloeOk(['table', 'scan', tableIdentifier, ...catalog, '--format', 'csv'], { env });
  return rowsFromScanCsv(stdout, timestampColumns);
}

// Parses `floe table scan --format csv` output; timestamps become epoch microseconds.
export function rowsFromScanCsv(csv, timestampColumns) {
  const [header, ...records] = parseCsv(csv);
  const rows = new Map();
  const duplicates = [];
  for (const record of records) {
    const row = {};
    header.forEach((column, i) => {
      let value = record[i] === '' ? null : record[i];
      if (value !== null && timestampColumns.has(column)) value = timestampToMicros(value);
      row[column] = value;
    });
    if (rows.has(row.id)) duplicates.push(row.id);
    rows.set(row.id, row);
  }
  return { rows, duplicates, count: records.length };
}

export function currentMetadataLocation(dir, tableIdentifier) {
  const { stdout } = runFloeOk(['table', 'describe', tableIdentifier, ...catalogArgs(dir)]);
  const m = /^metadata: (.+)$/m.exec(stdout);
  if (!m) throw new Error(`floe table describe printed no metadata line:\n${stdout}`);
  return m[1].trim().replace(/^file:\/\//, '');
}

// The data files of the table's current snapshot (manifest list and manifests
// read with avsc, entries not deleted; position and delete files left out),
// for reading a table whose commits never delete (append) with DuckDB.
export async function liveDataFiles(dir, tableIdentifier) {
  const location = currentMetadataLocation(dir, tableIdentifier);
  const metadata = JSON.parse(fs.readFileSync(location, 'utf8').replace(/(":\s*)(-?\d{16,})/g, '$1"$2"'));
  const current = String(metadata['current-snapshot-id']);
  const snapshot = metadata.snapshots.find((s) => String(s['snapshot-id']) === current);
  if (!snapshot) return [];
  const files = [];
  for (const manifest of await readAvroRecords(snapshot['manifest-list'].replace(/^file:\/\//, ''))) {
    if (manifest.content !== 0) throw new Error(`${tableIdentifier} has delete manifests: not an append-only table`);
    for (const entry of await readAvroRecords(manifest.manifest_path.replace(/^file:\/\//, ''))) {
      if (entry.status !== 2) files.push(entry.data_file.file_path.replace(/^file:\/\//, ''));
    }
  }
  return files;
}

// icebird fetches files by URL: serve local absolute paths from disk.
export function serveLocalFilesToFetch() {
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (url, init) => {
    const text = String(url);
    if (text.startsWith('/') || text.startsWith('file://')) {
      const file = text.replace(/^file:\/\//, '');
      if (!fs.existsSync(file)) return new Response('not found', { status: 404 });
      return new Response(fs.readFileSync(file));
    }
    return realFetch(url, init);
  };
}

// id -> seqval_hex of the table's rows as icebird reads them.
export async function icebirdVersions(metadataLocation) {
  const rows = await icebergRead({
    tableUrl: path.dirname(path.dirname(metadataLocation)),
    metadataFileName: path.basename(metadataLocation),
  });
  const versions = new Map();
  const duplicates = [];
  for (const row of rows) {
    const id = String(row.id);
    if (versions.has(id)) duplicates.push(id);
    versions.set(id, String(row.gwcbi___seqval_hex).toLowerCase());
  }
  return { versions, duplicates, count: rows.length };
}

// Compares expected and actual rows on every oracle column; returns problem strings (at most `limit`).
export function compareRows(expected, actual, { limit = 10, label = 'floe' } = {}) {
  const problems = [];
  const push = (message) => {
    if (problems.length < limit) problems.push(message);
  };
  if (expected.size !== actual.size) push(`${label}: ${actual.size} rows, expected ${expected.size}`);
  for (const [id, want] of expected) {
    const got = actual.get(id);
    if (!got) {
      push(`${label}: id ${id} missing (expected seqval ${want.gwcbi___seqval_hex})`);
      continue;
    }
    for (const [column, value] of Object.entries(want)) {
      const have = got[column] ?? null;
      const normalized = column === 'gwcbi___seqval_hex' && have !== null ? have.toLowerCase() : have;
      const wantValue = column === 'gwcbi___seqval_hex' && value !== null ? value.toLowerCase() : value;
      if ((normalized ?? '') !== (wantValue ?? '')) {
        push(`${label}: id ${id} column ${column}: got ${JSON.stringify(have)}, expected ${JSON.stringify(value)}`);
      }
    }
  }
  for (const id of actual.keys()) {
    if (!expected.has(id)) push(`${label}: id ${id} should not be in the table (seqval ${actual.get(id).gwcbi___seqval_hex})`);
  }
  return problems;
}

// Checks every table of the export against the oracle, through floe and icebird.
// `namespace`: where the tables are (a gold pipeline's target); `keep`: a
// predicate on oracle rows, for tables a [transform] filter thins.
export async function checkAgainstOracle(db, dir, exportDir, { icebird = true, namespace = 'cda', keep = null } = {}) {
  const problems = [];
  for (const table of exportTables(exportDir)) {
    const oracle = await oracleRows(db, committedFiles(exportDir, table));
    const { types } = oracle;
    const expected = keep ? new Map([...oracle.rows].filter(([, row]) => keep(row))) : oracle.rows;
    const identifier = `${namespace}.${table.toLowerCase()}`;
    if (expected.size === 0) continue;
    const timestampColumns = new Set([...types].filter(([, t]) => /^TIMESTAMP/.test(t)).map(([c]) => c));
    const actual = floeRows(dir, identifier, timestampColumns);
    if (actual.duplicates.length) problems.push(`${identifier}: duplicate ids ${actual.duplicates.slice(0, 5)}`);
    problems.push(...compareRows(expected, actual.rows, { label: `${identifier} (floe scan)` }));
    if (icebird) {
      const read = await icebirdVersions(currentMetadataLocation(dir, identifier));
      if (read.duplicates.length) problems.push(`${identifier}: icebird sees duplicate ids ${read.duplicates.slice(0, 5)}`);
      const wantVersions = new Map([...expected].map(([id, row]) => [id, { gwcbi___seqval_hex: row.gwcbi___seqval_hex }]));
      const gotVersions = new Map([...read.versions].map(([id, seq]) => [id, { gwcbi___seqval_hex: seq }]));
      problems.push(...compareRows(wantVersions, gotVersions, { label: `${identifier} (icebird)` }));
    }
  }
  return problems;
}

// Snapshot count of a table (from `floe table history`: one line per snapshot after the header).
export function snapshotIds(dir, tableIdentifier) {
  const { stdout } = runFloeOk(['table', 'history', tableIdentifier, ...catalogArgs(dir)]);
  return [...stdout.matchAll(/^\s*(\d{5,})\b/gm)].map((m) => m[1]);
}

// The ledger as objects, through `floe files CONFIG --format jsonl`.
export function ledgerFiles(config) {
  const { stdout } = runFloeOk(['files', config, '--format', 'jsonl']);
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}
