// [[aggregates]] end to end: random CDA batches (inserts, updates, deletes,
// late changes) into cc_claim with two aggregates — one by status and a
// 30-day tumbling window of createtime with a filter, one by 60-day hop
// windows starting every 30 days, one by status alone (null statuses a
// group of their own) — and after every round each
// aggregate table, read by icebird (which applies floe's position deletes),
// equals DuckDB's GROUP BY over the table's current rows (computed by DuckDB
// from the CDA export, the oracle the pipeline tests check floe's table
// against). Then `floe run --once` is killed with SIGKILL at random moments
// over more rounds and a final run must still give the GROUP BY, with no
// source commit applied twice (each aggregate snapshot names a source
// snapshot newer than its parent's).
//
// A fourth aggregate, 10-minute hop windows every 5 minutes with
// watermark = "5 minutes" and late_changes = "drop" (the demo's folders are
// 5 minutes apart and a batch takes about one: updates and deletes of older
// rows, whose createtime stays, and late arrivals are late), is checked against DuckDB applying the rule to the
// table's change feed (cc_claim__changes): each source commit's changes are
// judged against the watermark of the commits before it (the largest
// createtime of the inserts and post-images passing the filter, minus 5
// minutes); a change's windows that ended at or before it are left out. Its
// recorded late count must equal the changes with a closed window.
//
// DuckDB's iceberg extension is not available offline here, so DuckDB
// computes the expected GROUP BY and icebird reads the Iceberg tables.
//
// Env: FLOE_BIN (required), FLOE_AGGREGATE_SEED (default 20261205).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDuckDB } from '../tools/readers.mjs';
import { icebirdRows, tableVersions } from '../tools/change_feed_oracle.mjs';
import { makeRng } from '../tools/random_parquet.mjs';
import {
  checkAgainstOracle,
  committedFiles,
  currentMetadataLocation,
  currentRowsSql,
  runAndKill,
  runFloeOk,
  serveLocalFilesToFetch,
  skipWithoutFloe,
  writePipelineConfig,
} from '../tools/pipeline_oracle.mjs';

let db;
let work;
before(async () => {
  serveLocalFilesToFetch();
  db = await openDuckDB();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-aggregates-'));
});
after(() => {
  db?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const WINDOW_MS = 30 * 86_400_000;
const AGGREGATES = `
[[aggregates]]
name = "claims_by_status_30d"
table = "cc_claim"
group_by = ["status", "window(createtime, '30 days')"]
measures = ["count(*) AS claims", "sum(totalincurred) AS incurred", "avg(totalincurred)", "min(totalincurred)",
            "max(deductible)", "count(policyid)"]
filter = "status <> 'closed'"

[[aggregates]]
name = "claims_hop_60d"
table = "cc_claim"
group_by = ["hop(createtime, '60 days', '30 days')"]
measures = ["count(*) AS claims", "max(totalincurred)", "sum(deductible)"]

[[aggregates]]
name = "claims_by_status"
table = "cc_claim"
group_by = ["status"]
measures = ["count(*)", "sum(deductible)", "min(lossdate)", "max(lossdate)", "avg(policyid)"]
`;

const LATE_AGGREGATE = `
[[aggregates]]
name = "claims_hop_late"
table = "cc_claim"
group_by = ["hop(createtime, '10 minutes', '5 minutes')"]
measures = ["count(*) AS claims", "sum(deductible)"]
filter = "status <> 'closed'"
watermark = "5 minutes"
late_changes = "drop"
`;
const LATE_SLIDE_MS = 5 * 60_000;  // the hop's slide; its size is twice that
const WATERMARK_MS = 5 * 60_000;

// Per aggregate: the group columns, the measure columns, and DuckDB's GROUP BY
// over the current rows giving the same columns (times as epoch milliseconds).
const EXPECTED = {
  claims_by_status_30d: {
    groups: ['status', 'window_start'],
    measures: ['claims', 'incurred', 'avg_totalincurred', 'min_totalincurred', 'max_deductible', 'count_policyid'],
    select: `status, CAST(floor(epoch_ms(createtime) / ${WINDOW_MS}) * ${WINDOW_MS} AS BIGINT) AS window_start,
      count(*) AS claims, CAST(sum(totalincurred) AS DOUBLE) AS incurred, avg(totalincurred) AS avg_totalincurred,
      CAST(min(totalincurred) AS DOUBLE) AS min_totalincurred, CAST(max(deductible) AS DOUBLE) AS max_deductible,
      count(policyid) AS count_policyid`,
    where: "WHERE status <> 'closed'",
  },
  // Each claim is in the two 60-day windows holding its createtime, which start every 30 days.
  claims_hop_60d: {
    groups: ['window_start'],
    measures: ['claims', 'max_totalincurred', 'sum_deductible'],
    select: `window_start, count(*) AS claims, CAST(max(totalincurred) AS DOUBLE) AS max_totalincurred,
      CAST(sum(deductible) AS DOUBLE) AS sum_deductible`,
    from: (rows) => `(SELECT *, unnest(CASE WHEN createtime IS NULL THEN [NULL::BIGINT] ELSE
      generate_series(CAST(floor(epoch_ms(createtime) / ${WINDOW_MS}) * ${WINDOW_MS} AS BIGINT) - ${WINDOW_MS},
                      CAST(floor(epoch_ms(createtime) / ${WINDOW_MS}) * ${WINDOW_MS} AS BIGINT), ${WINDOW_MS}) END)
      AS window_start FROM (${rows}))`,
    where: '',
  },
  claims_by_status: {
    groups: ['status'],
    measures: ['count', 'sum_deductible', 'min_lossdate', 'max_lossdate', 'avg_policyid'],
    select: `status, count(*) AS count, CAST(sum(deductible) AS DOUBLE) AS sum_deductible,
      epoch_ms(CAST(min(lossdate) AS TIMESTAMP)) AS min_lossdate, epoch_ms(CAST(max(lossdate) AS TIMESTAMP)) AS max_lossdate,
      avg(policyid) AS avg_policyid`,
    where: '',
  },
};

// One value as a comparable JS value: times as epoch milliseconds, numbers as numbers.
function normal(value) {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'object' && 'value' in value) return normal(value.value);
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

const close = (a, b) => (a === null || b === null ? a === b
  : typeof a === 'number' && typeof b === 'number' ? Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b))
    : a === b);

async function checkAggregates(dir, exportDir, label) {
  const problems = [];
  const files = committedFiles(exportDir, 'cc_claim');
  for (const [name, spec] of Object.entries(EXPECTED)) {
    const rows = spec.from ? spec.from(currentRowsSql(files)) : `(${currentRowsSql(files)})`;
    const want = await db.all(`SELECT ${spec.select} FROM ${rows} ${spec.where} GROUP BY ALL`);
    const got = await icebirdRows(currentMetadataLocation(dir, `cda.${name}`));
    const key = (row) => JSON.stringify(spec.groups.map((g) => normal(row[g])));
    const wanted = new Map(want.map((row) => [key(row), row]));
    const seen = new Set();
    for (const row of got) {
      const k = key(row);
      if (seen.has(k)) problems.push(`${label}: ${name}: group ${k} twice`);
      seen.add(k);
      const expected = wanted.get(k);
      if (!expected) {
        problems.push(`${label}: ${name}: group ${k} should not exist (${JSON.stringify(row, (_, v) => (typeof v === 'bigint' ? String(v) : v))})`);
        continue;
      }
      for (const m of spec.measures) {
        if (!close(normal(row[m]), normal(expected[m]))) {
          problems.push(`${label}: ${name}: group ${k}: ${m} is ${normal(row[m])}, GROUP BY gives ${normal(expected[m])}`);
        }
      }
    }
    for (const k of wanted.keys()) if (!seen.has(k)) problems.push(`${label}: ${name}: group ${k} missing`);
    if (got.length === 0 && want.length > 0) problems.push(`${label}: ${name}: empty`);

    // Exactly once: the source snapshots recorded along the aggregate's history only move forward.
    // The history is the current snapshot's ancestry: a run killed between writing a metadata file
    // and the catalog's pointer swap leaves snapshots on disk that never were the table's.
    const versions = tableVersions(path.join(dir, 'warehouse', 'cda', name));
    const source = tableVersions(path.join(dir, 'warehouse', 'cda', 'cc_claim'));
    const history = [];
    const currentText = fs.readFileSync(currentMetadataLocation(dir, `cda.${name}`), 'utf8');
    for (let id = /"current-snapshot-id"\s*:\s*(-?\d+)/.exec(currentText)?.[1]; id && versions.has(id);
      id = versions.get(id).parent) history.unshift(versions.get(id));
    // (Maintenance snapshots carry their parent's position forward: they apply nothing.)
    const recorded = history.filter((v) => v.operation !== 'replace')
      .map((v) => v.summary['floe.source-snapshot-id']).filter(Boolean);
    if (recorded.length === 0) problems.push(`${label}: ${name}: no source snapshot recorded`);
    if (new Set(recorded).size !== recorded.length) problems.push(`${label}: ${name}: a source snapshot applied twice`);
    const sequences = recorded.map((id) => source.get(id)?.sequence ?? -1);
    for (let i = 1; i < sequences.length; ++i) {
      if (!(sequences[i] > sequences[i - 1])) problems.push(`${label}: ${name}: recorded source snapshots out of order`);
    }
  }
  return problems.slice(0, 20);
}

// claims_hop_late against DuckDB applying the watermark rule to the change feed.
async function checkLateAggregate(dir, label) {
  const problems = [];
  const source = tableVersions(path.join(dir, 'warehouse', 'cda', 'cc_claim'));
  const feed = await icebirdRows(currentMetadataLocation(dir, 'cda.cc_claim__changes'));
  const file = path.join(dir, 'feed.json');
  fs.writeFileSync(file, feed.map((r) => JSON.stringify({
    seq: source.get(String(r._commit_snapshot_id))?.sequence ?? -1,
    type: r._change_type,
    ord: normal(r._change_ordinal),
    status: r.status ?? null,
    t: normal(r.createtime),
    deductible: normal(r.deductible),
  })).join('\n'));
  if (feed.some((r) => !source.has(String(r._commit_snapshot_id)))) problems.push(`${label}: a feed row of an unknown commit`);
  const W = LATE_SLIDE_MS;
  // An update that leaves the aggregate's columns as they were is no change to it (nor counted).
  const judged = `WITH raw AS (SELECT * FROM read_json('${file}',
      columns = {seq: 'BIGINT', type: 'VARCHAR', ord: 'BIGINT', status: 'VARCHAR', t: 'BIGINT', deductible: 'DOUBLE'})),
    noop AS (SELECT a.seq, a.ord FROM raw a JOIN raw b ON a.seq = b.seq AND a.ord = b.ord
      AND a.type = 'update_preimage' AND b.type = 'update_postimage'
      WHERE a.status IS NOT DISTINCT FROM b.status AND a.t IS NOT DISTINCT FROM b.t
        AND a.deductible IS NOT DISTINCT FROM b.deductible),
    ch AS (
      SELECT *, CASE WHEN type IN ('insert', 'update_postimage') THEN 1 ELSE -1 END AS sign, row_number() OVER () AS id
      FROM raw WHERE status <> 'closed' AND NOT EXISTS (SELECT 1 FROM noop WHERE noop.seq = raw.seq AND noop.ord = raw.ord)),
    per AS (SELECT seq, max(t) FILTER (WHERE sign = 1) AS m FROM ch GROUP BY seq),
    wm AS (SELECT seq, max(m) OVER (ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) - ${WATERMARK_MS}
      AS watermark FROM per),
    win AS (SELECT ch.*, wm.watermark, unnest(CASE WHEN t IS NULL THEN [NULL::BIGINT] ELSE
      generate_series(CAST(floor(t / ${W}) * ${W} AS BIGINT) - ${W}, CAST(floor(t / ${W}) * ${W} AS BIGINT), ${W}) END)
      AS window_start FROM ch JOIN wm USING (seq))
    SELECT *, coalesce(window_start + ${2 * W} <= watermark, false) AS closed FROM win`;
  const want = await db.all(`SELECT window_start, CAST(sum(sign) AS BIGINT) AS claims,
      CAST(coalesce(sum(sign * deductible), 0) AS DOUBLE) AS sum_deductible
    FROM (${judged}) WHERE NOT closed GROUP BY window_start HAVING sum(sign) <> 0`);
  const [{ late }] = await db.all(`SELECT CAST(count(DISTINCT id) AS BIGINT) AS late FROM (${judged}) WHERE closed`);
  const got = await icebirdRows(currentMetadataLocation(dir, 'cda.claims_hop_late'));
  const wanted = new Map(want.map((row) => [normal(row.window_start), row]));
  for (const row of got) {
    const expected = wanted.get(normal(row.window_start));
    wanted.delete(normal(row.window_start));
    if (!expected) {
      problems.push(`${label}: claims_hop_late: window ${normal(row.window_start)} should not exist`);
    } else if (normal(row.claims) !== normal(expected.claims)
      || !close(normal(row.sum_deductible) ?? 0, normal(expected.sum_deductible))) {
      problems.push(`${label}: claims_hop_late: window ${normal(row.window_start)}: ${normal(row.claims)} claims, `
        + `${normal(row.sum_deductible)} deductible; the rule gives ${normal(expected.claims)}, ${normal(expected.sum_deductible)}`);
    }
  }
  for (const k of wanted.keys()) problems.push(`${label}: claims_hop_late: window ${k} missing`);
  const versions = tableVersions(path.join(dir, 'warehouse', 'cda', 'claims_hop_late'));
  const currentText = fs.readFileSync(currentMetadataLocation(dir, 'cda.claims_hop_late'), 'utf8');
  const current = versions.get(/"current-snapshot-id"\s*:\s*(-?\d+)/.exec(currentText)?.[1]);
  const recorded = Number(current?.summary['floe.aggregate-late-changes']);
  if (recorded !== normal(late)) problems.push(`${label}: claims_hop_late: ${recorded} late changes recorded, the rule gives ${normal(late)}`);
  return { problems: problems.slice(0, 20), late: normal(late) };
}

test('aggregates equal DuckDB GROUP BY after every round, and after kill -9 at random moments', async (t) => {
  if (skipWithoutFloe(t)) return;
  const seed = Number(process.env.FLOE_AGGREGATE_SEED ?? 20261205);
  const random = makeRng(seed).next;
  const dir = fs.mkdtempSync(path.join(work, 'rounds-'));
  const exportDir = path.join(dir, 'export');
  const flags = ['--seed', String(seed % 1000), '--rows', '600', '--tables', '1'];
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--folders', '4', '--files-per-folder', '2']);
  const config = writePipelineConfig(dir, exportDir, {
    target: 'change_feed = true',
    extra: `[trigger]\nmax_files_per_batch = 2\n[maintenance]\ncompact_every = 3\nmin_input_files = 2\n${AGGREGATES}${LATE_AGGREGATE}`,
  });
  const check = async (label) => {
    assert.deepEqual(await checkAggregates(dir, exportDir, label), []);
    const late = await checkLateAggregate(dir, label);
    assert.deepEqual(late.problems, []);
    return late.late;
  };
  runFloeOk(['run', config, '--once']);
  await check('round 0');
  let round = 1;
  for (; round <= 3; ++round) {
    runFloeOk(['demo', 'generate', exportDir, ...flags, '--append-round', String(round), '--append-folders', '2']);
    runFloeOk(['run', config, '--once']);
    await check(`round ${round}`);
  }

  // Kills: each round's run is killed at a random moment, then run again to the end.
  let killed = 0;
  let lateChanges = 0;
  for (; round <= 7; ++round) {
    runFloeOk(['demo', 'generate', exportDir, ...flags, '--append-round', String(round), '--append-folders', '2']);
    for (let k = 0; k < 2; ++k) {
      const outcome = await runAndKill(config, Math.floor(20 + random() * 400));
      if (outcome.signal === 'SIGKILL') ++killed;
    }
    runFloeOk(['run', config, '--once']);
    lateChanges = await check(`round ${round} after kills`);
  }
  t.diagnostic(`${killed} runs killed, ${lateChanges} late changes dropped`);
  assert.ok(lateChanges > 0, 'no change was late: the watermark rule went untested');
  // The aggregate tables take a commit per commit of their table: the pipeline's maintenance compacts them too.
  for (const name of Object.keys(EXPECTED)) {
    const versions = [...tableVersions(path.join(dir, 'warehouse', 'cda', name)).values()];
    assert.ok(versions.some((v) => v.operation === 'replace' && v.summary['floe.maintenance'] === 'compaction'
      && v.summary['floe.source-snapshot-id']), `${name} was never compacted (or its compaction lost its source position)`);
  }
  assert.deepEqual(await checkAgainstOracle(db, dir, exportDir, { icebird: false }), []);
});

test('an aggregate added to an existing table is built from its current rows', async (t) => {
  if (skipWithoutFloe(t)) return;
  const dir = fs.mkdtempSync(path.join(work, 'late-'));
  const exportDir = path.join(dir, 'export');
  const flags = ['--seed', '31', '--rows', '400', '--tables', '1'];
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--folders', '3', '--files-per-folder', '2']);
  runFloeOk(['run', writePipelineConfig(dir, exportDir), '--once']);
  assert.ok(!fs.existsSync(path.join(dir, 'warehouse', 'cda', 'claims_by_status')));
  // No new file: the run still builds the aggregates from the table.
  const config = writePipelineConfig(dir, exportDir, { extra: AGGREGATES });
  runFloeOk(['run', config, '--once']);
  assert.deepEqual(await checkAggregates(dir, exportDir, 'added'), []);
  runFloeOk(['demo', 'generate', exportDir, ...flags, '--append-round', '1', '--append-folders', '2']);
  runFloeOk(['run', config, '--once']);
  assert.deepEqual(await checkAggregates(dir, exportDir, 'then a round'), []);
});
