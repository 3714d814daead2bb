// Checks a change feed (what `floe table changes` or a `<table>__changes`
// table lists) against the difference of two snapshots of the table, both
// read by readers floe shares no code with.
//
// The snapshot rows come from icebird (or any reader giving plain row
// objects), the feed rows from hyparquet over the Parquet floe wrote; every
// value becomes a canonical text (numbers and bigints as decimal text, so a
// column widened from int to bigint compares equal; Dates as epoch ms; bytes
// as hex) and a row becomes one "image" string over the columns of the
// newer snapshot's schema (doubles to 15 significant digits). DuckDB then does the set work in SQL:
//   - net effect per key: the image before the key's first change in the
//     range (its pre-image; none for an insert) must be the row at A, and
//     the image after its last change (its post-image; none for a delete)
//     the row at B;
//   - every key whose row differs between A and B is in the feed;
//   - each key's changes chain (within a commit removals before additions,
//     which is the order an unkeyed feed must be applied in): a change's
//     pre-image equals the previous change's post-image, an update_preimage
//     is followed by the update_postimage of the same commit and ordinal.
// Problems come back as strings (empty: the feed is right).
import fs from 'node:fs';
import path from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { icebergRead } from 'icebird';
import { sqlString } from './readers.mjs';

export const CHANGE_COLUMNS = ['_change_type', '_commit_snapshot_id', '_commit_timestamp', '_change_ordinal'];

// One canonical text per value, the same for every reader's form of it.
export function valueText(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  // Decimals arrive as doubles, computed differently for different physical
  // encodings of the same value (4688.94 vs 4688.9400000000005): 15 digits.
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(Number(value.toPrecision(15)));
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return `ms:${value.getTime()}`;
  if (value instanceof Uint8Array) return `hex:${Buffer.from(value).toString('hex')}`;
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
}

export function imageOf(row, columns) {
  return JSON.stringify(columns.map((c) => valueText(row[c])));
}

// Per snapshot id (as a string): its metadata file (the first that made it
// current), sequence number and parent, read from the table's metadata files.
export function tableVersions(tableLocation) {
  const dir = path.join(tableLocation, 'metadata');
  const versions = new Map();
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.metadata.json')).sort();
  for (const file of files) {
    // Snapshot ids need all 64 bits: quote them before JSON.parse sees them.
    const text = fs.readFileSync(path.join(dir, file), 'utf8')
      .replace(/("(?:snapshot-id|parent-snapshot-id|current-snapshot-id)"\s*:\s*)(-?\d+)/g, '$1"$2"');
    const metadata = JSON.parse(text);
    for (const s of metadata.snapshots ?? []) {
      if (!versions.has(s['snapshot-id'])) {
        versions.set(s['snapshot-id'], {
          parent: s['parent-snapshot-id'] ?? null,
          sequence: s['sequence-number'],
          operation: s.summary?.operation,
          summary: s.summary ?? {},
          metadata: null,
        });
      }
    }
    const current = versions.get(metadata['current-snapshot-id']);
    if (current && current.metadata === null) current.metadata = path.join(dir, file);
  }
  return versions;
}

// The rows of the snapshot a metadata file makes current, through icebird.
export async function icebirdRows(metadataFile) {
  return icebergRead({
    tableUrl: path.dirname(path.dirname(metadataFile)),
    metadataFileName: path.basename(metadataFile),
  });
}

// Every row of a Parquet file, through hyparquet.
export async function hyparquetRows(file) {
  const buffer = await asyncBufferFromFile(file);
  const metadata = await parquetMetadataAsync(buffer);
  const columns = metadata.schema.slice(1).filter((e) => e.name !== undefined).map((e) => e.name);
  const rows = await parquetReadObjects({ file: buffer, metadata, compressors });
  return { rows, columns };
}

async function loadTable(db, name, columns, rows) {
  await db.connection.run(`CREATE OR REPLACE TABLE ${name} (${columns.map((c) => `${c} VARCHAR`).join(', ')})`);
  const appender = await db.connection.createAppender(name);
  for (const row of rows) {
    for (const c of columns) {
      const v = row[c];
      if (v === null || v === undefined) appender.appendNull();
      else appender.appendVarchar(String(v));
    }
    appender.endRow();
  }
  appender.flushSync();
  appender.closeSync();
}

// `before` / `after`: snapshot rows (objects); `feed`: feed rows (objects with
// the change columns); `columns`: the table columns images are made of;
// `key`: the key column; `sequences`: snapshot id (string) -> sequence number.
export async function checkFeedAgainstSnapshots(db, { before, after, feed, columns, key, sequences, label }) {
  const keyText = (row) => valueText(row[key]);
  await loadTable(db, 'snap_a', ['k', 'image'], before.map((r) => ({ k: keyText(r), image: imageOf(r, columns) })));
  await loadTable(db, 'snap_b', ['k', 'image'], after.map((r) => ({ k: keyText(r), image: imageOf(r, columns) })));
  await loadTable(db, 'feed', ['k', 'image', 'type', 'seq', 'ordinal'], feed.map((r) => ({
    k: keyText(r),
    image: imageOf(r, columns),
    type: r._change_type,
    seq: String(sequences.get(String(r._commit_snapshot_id)) ?? -1),
    ordinal: String(r._change_ordinal),
  })));
  const problems = [];
  const report = async (what, sql) => {
    const rows = await db.all(sql);
    for (const row of rows.slice(0, 5)) problems.push(`${label}: ${what}: ${JSON.stringify(row)}`);
    if (rows.length > 5) problems.push(`${label}: ${what}: ${rows.length} in total`);
  };
  await report('duplicate keys in a snapshot', `
    SELECT 'a' AS side, k, count(*) AS n FROM snap_a GROUP BY k HAVING n > 1
    UNION ALL SELECT 'b', k, count(*) FROM snap_b GROUP BY k HAVING count(*) > 1`);
  await report('changes of unknown commits', `SELECT * FROM feed WHERE seq = '-1'`);
  const ordered = `
    SELECT *, row_number() OVER w AS step, count(*) OVER (PARTITION BY k) AS steps,
           lag(type) OVER w AS prev_type, lag(image) OVER w AS prev_image,
           lag(seq) OVER w AS prev_seq, lag(ordinal) OVER w AS prev_ordinal
    FROM feed
    WINDOW w AS (PARTITION BY k ORDER BY seq::BIGINT,
                 CASE WHEN type IN ('delete', 'update_preimage') THEN 0 ELSE 1 END, ordinal::BIGINT)`;
  await report('feed rows without a matching snapshot difference (key, image before, image after)', `
    WITH o AS (${ordered}),
    net AS (
      SELECT k,
             max(CASE WHEN step = 1 AND type IN ('delete', 'update_preimage') THEN image END) AS first_image,
             max(CASE WHEN step = steps AND type IN ('insert', 'update_postimage') THEN image END) AS last_image
      FROM o GROUP BY k)
    SELECT net.k, net.first_image, a.image AS at_a, net.last_image, b.image AS at_b
    FROM net LEFT JOIN snap_a a USING (k) LEFT JOIN snap_b b USING (k)
    WHERE net.first_image IS DISTINCT FROM a.image OR net.last_image IS DISTINCT FROM b.image`);
  await report('rows that differ between the snapshots but are not in the feed', `
    SELECT coalesce(a.k, b.k) AS k, a.image AS at_a, b.image AS at_b
    FROM snap_a a FULL OUTER JOIN snap_b b USING (k)
    WHERE a.image IS DISTINCT FROM b.image AND coalesce(a.k, b.k) NOT IN (SELECT k FROM feed)`);
  await report('changes that do not chain (pre-image differs from the previous post-image)', `
    WITH o AS (${ordered})
    SELECT k, seq, ordinal, type, prev_type FROM o
    WHERE (type IN ('delete', 'update_preimage') AND step > 1
           AND (prev_type NOT IN ('insert', 'update_postimage') OR prev_image IS DISTINCT FROM image))
       OR (type = 'insert' AND step > 1 AND prev_type NOT IN ('delete'))
       OR (type = 'update_postimage' AND (prev_type IS DISTINCT FROM 'update_preimage'
                                          OR prev_seq IS DISTINCT FROM seq OR prev_ordinal IS DISTINCT FROM ordinal))`);
  await report('update pairs whose images are equal (carry-overs must vanish)', `
    WITH o AS (${ordered})
    SELECT k, seq, ordinal FROM o WHERE type = 'update_postimage' AND prev_image = image`);
  return problems;
}

export { sqlString };
