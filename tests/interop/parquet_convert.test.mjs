// Property test for `floe parquet convert`: random DuckDB-written inputs,
// converted with every codec (and once with tiny row groups and pages, once
// with data page v2), must read back identically through three independent
// readers: DuckDB, hyparquet and parquet-wasm (arrow-rs). The output must
// also keep each column's logical type and use the requested codec.
//
// A second test converts the codec-related files of the shared parquet-testing
// corpus (Hadoop/raw/frame LZ4, concatenated gzip members, empty compressed
// pages) and compares them the same way; it skips, saying why, when the
// shared directory is absent.
//
// Env: FLOE_BIN (the floe binary, required); FLOE_SHARED_DIR (optional); FLOE_CONVERT_SEEDS (optional,
// comma-separated seeds to replace the fixed ones); FLOE_KEEP_TEMP=1 keeps
// the work directory. A failing conversion fails the test; it never skips.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';

import { listPages } from '../tools/parquet_pages.mjs';
import { generateRandomParquet, makeRng } from '../tools/random_parquet.mjs';
import {
  compareCells,
  compareWithDuckDB,
  openDuckDB,
  parquetLayout,
  parquetSchemaSummary,
  readWithHyparquet,
  readWithParquetWasm,
  sqlString,
} from '../tools/readers.mjs';

const run = promisify(execFile);

const FLOE_BIN = process.env.FLOE_BIN;
const SEEDS = process.env.FLOE_CONVERT_SEEDS
  ? process.env.FLOE_CONVERT_SEEDS.split(',').map(Number)
  : [101, 202, 303];
const CODECS = ['snappy', 'zstd', 'gzip', 'lz4', 'brotli', 'none'];
// What parquet_metadata() must report for each --codec value. `lz4` must be
// LZ4_RAW: the deprecated LZ4 codec's framing is ambiguous across writers.
const PARQUET_CODEC = {
  snappy: 'SNAPPY', zstd: 'ZSTD', gzip: 'GZIP', lz4: 'LZ4_RAW', brotli: 'BROTLI', none: 'UNCOMPRESSED',
};
const SMALL_ROW_GROUP_ROWS = 700;
const SMALL_PAGE_BYTES = 2048;

let db;
let workDir;
let failed = false;

before(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'floe-convert-'));
  db = await openDuckDB();
});

after(() => {
  db?.close();
  if (failed || process.env.FLOE_KEEP_TEMP === '1') {
    console.log(`# parquet_convert: files kept in ${workDir}`);
  } else if (workDir) {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
});

async function convert(input, output, extraArgs) {
  assert.ok(FLOE_BIN, 'FLOE_BIN is not set: run through ctest or set it to the floe binary');
  const args = ['parquet', 'convert', input, output, ...extraArgs];
  try {
    await run(FLOE_BIN, args, { timeout: 60_000, maxBuffer: 16 << 20 });
  } catch (error) {
    failed = true;
    const why = error.killed ? 'timed out after 60 s' : `exited with ${error.code ?? error.signal}`;
    assert.fail(`floe ${args.join(' ')} ${why}\nstderr: ${String(error.stderr ?? '').trim()}\n` +
      `stdout: ${String(error.stdout ?? '').trim()}`);
  }
  if (!fs.existsSync(output)) {
    failed = true;
    assert.fail(`floe ${args.join(' ')} succeeded but wrote no ${output}`);
  }
}

// Reads with hyparquet and parquet-wasm; a reader error becomes a problem line.
async function readAll(file) {
  const reads = {};
  const problems = [];
  for (const [name, read] of [['hyparquet', readWithHyparquet], ['parquet-wasm', readWithParquetWasm]]) {
    try {
      reads[name] = await read(file);
    } catch (error) {
      problems.push(`${name}: cannot read ${file}: ${error.message}`);
    }
  }
  return { reads, problems };
}

async function schemaProblems(input, output) {
  const want = await parquetSchemaSummary(db, input);
  const got = await parquetSchemaSummary(db, output);
  const problems = [];
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    if (want[i]?.key === got[i]?.key) continue;
    problems.push(`parquet_schema element #${i}: expected ${want[i]?.key ?? '(none)'} ` +
      `[${want[i]?.physical ?? ''}], actual ${got[i]?.key ?? '(none)'} [${got[i]?.physical ?? ''}] ` +
      `(name|repetition|children|duckdb_type|annotation|unit|precision|scale)`);
    if (problems.length >= 10) break;
  }
  return problems;
}

// Checks one converted file against its input; throws one assertion listing
// every problem found.
// `layout` may ask for row group / page limits; `duckdbReadsInput` is false
// for inputs DuckDB cannot decode (Hadoop-framed LZ4), where DuckDB only has
// to read the output and count the same rows as the other readers.
async function checkConversion(context, input, inputReads, output, codec, layout = {}, duckdbReadsInput = true) {
  const problems = [];
  const outLayout = await parquetLayout(db, output);
  const wantCodec = PARQUET_CODEC[codec];
  if (outLayout.codecs.length !== 1 || outLayout.codecs[0] !== wantCodec) {
    problems.push(`parquet_metadata: codecs ${JSON.stringify(outLayout.codecs)}, expected ["${wantCodec}"]`);
  }
  if (layout.rowGroupRows) {
    const total = outLayout.rowGroupRows.reduce((a, b) => a + b, 0);
    const tooBig = outLayout.rowGroupRows.filter((n) => n > layout.rowGroupRows);
    if (tooBig.length > 0) {
      problems.push(`row groups of ${JSON.stringify(tooBig)} rows exceed --row-group-rows ${layout.rowGroupRows}`);
    }
    if (outLayout.rowGroupRows.length < Math.ceil(total / layout.rowGroupRows)) {
      problems.push(`${outLayout.rowGroupRows.length} row groups for ${total} rows with --row-group-rows ${layout.rowGroupRows}`);
    }
  }
  if (layout.pageBytes) {
    // Every chunk whose data is far over the page limit must be split into
    // several data pages. (Pages themselves may overshoot the limit: writers
    // check sizes between batches of values, and one long string can exceed
    // it alone.)
    let multiPageChunks = 0;
    for (const chunk of outLayout.chunks) {
      let pages;
      try {
        pages = listPages(output, chunk);
      } catch (error) {
        problems.push(`pages of ${chunk.path_in_schema} in row group ${chunk.row_group_id}: ${error.message}`);
        continue;
      }
      const dataPages = pages.filter((p) => p.type === 'DATA_PAGE' || p.type === 'DATA_PAGE_V2');
      if (dataPages.length > 1) multiPageChunks++;
      const dataBytes = dataPages.reduce((a, p) => a + p.uncompressedBytes, 0);
      if (dataBytes > 4 * layout.pageBytes + 65536 && dataPages.length < 2) {
        problems.push(`column ${chunk.path_in_schema} row group ${chunk.row_group_id}: one data page of ` +
          `${dataBytes} bytes with --page-bytes ${layout.pageBytes}`);
      }
    }
    if (multiPageChunks === 0) problems.push(`no column chunk has more than one data page with --page-bytes ${layout.pageBytes}`);
  }
  problems.push(...await schemaProblems(input, output));
  try {
    if (duckdbReadsInput) {
      problems.push(...await compareWithDuckDB(db, input, output));
    } else {
      const [{ n }] = await db.all(`SELECT count(*) AS n FROM read_parquet(${sqlString(output)})`);
      const want = Object.values(inputReads)[0]?.cells[0]?.length;
      if (want !== undefined && Number(n) !== want) problems.push(`duckdb: output has ${n} rows, expected ${want}`);
    }
  } catch (error) {
    problems.push(`duckdb: cannot compare: ${error.message}`);
  }
  const { reads, problems: readProblems } = await readAll(output);
  problems.push(...readProblems);
  for (const [name, read] of Object.entries(reads)) {
    if (inputReads[name]) problems.push(...compareCells(inputReads[name], read));
  }
  if (problems.length > 0) {
    failed = true;
    assert.fail(`${context}\n  input:  ${input}\n  output: ${output}\n  ${problems.join('\n  ')}`);
  }
}

for (const seed of SEEDS) {
  test(`floe parquet convert preserves random data (seed ${seed})`, async (t) => {
    const dir = path.join(workDir, `seed-${seed}`);
    fs.mkdirSync(dir, { recursive: true });
    const input = path.join(dir, 'in.parquet');
    const generated = await generateRandomParquet(db.connection, input, seed);
    fs.writeFileSync(path.join(dir, 'in.sql'), generated.sql);
    const { reads: inputReads, problems } = await readAll(input);
    assert.deepEqual(problems, [], `the test's own input must be readable (seed ${seed})`);
    const describe = `seed ${seed}: ${generated.rows} rows, ${generated.columns.length} columns, input ${generated.compression}`;

    for (const codec of CODECS) {
      await t.test(`--codec ${codec}`, async () => {
        const output = path.join(dir, `out-${codec}.parquet`);
        await convert(input, output, ['--codec', codec]);
        await checkConversion(`${describe}; floe parquet convert --codec ${codec}`, input, inputReads, output, codec);
      });
    }

    const rng = makeRng(seed);
    const codec = rng.pick(CODECS);
    await t.test(`--codec ${codec} --row-group-rows ${SMALL_ROW_GROUP_ROWS} --page-bytes ${SMALL_PAGE_BYTES}`, async () => {
      const output = path.join(dir, 'out-small.parquet');
      const args = ['--codec', codec, '--row-group-rows', String(SMALL_ROW_GROUP_ROWS),
        '--page-bytes', String(SMALL_PAGE_BYTES)];
      await convert(input, output, args);
      await checkConversion(`${describe}; floe parquet convert ${args.join(' ')}`, input, inputReads, output, codec,
        { rowGroupRows: SMALL_ROW_GROUP_ROWS, pageBytes: SMALL_PAGE_BYTES });
    });

    // Data page v2 compresses only the values, so all-null pages hand the
    // codec empty inputs.
    const v2Codec = rng.pick(CODECS.filter((c) => c !== 'none'));
    await t.test(`--codec ${v2Codec} --page-version 2`, async () => {
      const output = path.join(dir, 'out-v2.parquet');
      const args = ['--codec', v2Codec, '--page-version', '2', '--page-bytes', String(8 * SMALL_PAGE_BYTES)];
      await convert(input, output, args);
      await checkConversion(`${describe}; floe parquet convert ${args.join(' ')}`, input, inputReads, output, v2Codec,
        { pageBytes: 8 * SMALL_PAGE_BYTES });
    });
  });
}

// Codec edge cases from apache/parquet-testing, each converted to another codec.
const CORPUS_FILES = [
  'hadoop_lz4_compressed.parquet',
  'hadoop_lz4_compressed_larger.parquet',
  'non_hadoop_lz4_compressed.parquet',
  'lz4_raw_compressed.parquet',
  'lz4_raw_compressed_larger.parquet',
  'concatenated_gzip_members.parquet',
  'datapage_v1-snappy-compressed-checksum.parquet',
  'page_v2_empty_compressed.parquet',
  'datapage_v2_empty_datapage.snappy.parquet',
];

function sharedDir() {
  const dir = process.env.FLOE_SHARED_DIR ||
    (process.env.FLOE_SOURCE_DIR ? path.join(process.env.FLOE_SOURCE_DIR, '..', 'shared') : '');
  return dir && fs.existsSync(dir) ? dir : null;
}

test('floe parquet convert keeps the parquet-testing codec files', async (t) => {
  const shared = sharedDir();
  if (!shared) {
    t.skip('shared test data not found (set FLOE_SHARED_DIR or put shared/ beside the repository)');
    return;
  }
  const dir = path.join(workDir, 'corpus');
  fs.mkdirSync(dir, { recursive: true });
  for (const [index, name] of CORPUS_FILES.entries()) {
    const codec = CODECS[index % CODECS.length];
    await t.test(`${name} --codec ${codec}`, async () => {
      const input = path.join(shared, 'testdata', 'parquet-testing', 'data', name);
      assert.ok(fs.existsSync(input), `${input} is missing from the shared corpus`);
      const { reads: inputReads } = await readAll(input);
      assert.ok(Object.keys(inputReads).length > 0, `no reference reader can read ${input}`);
      let duckdbReadsInput = true;
      try {
        await db.all(`SELECT * FROM read_parquet(${sqlString(input)})`);  // decodes every page
      } catch {
        duckdbReadsInput = false;  // e.g. Hadoop-framed LZ4
      }
      const output = path.join(dir, name.replace(/\.parquet$/, `.${codec}.parquet`));
      await convert(input, output, ['--codec', codec]);
      await checkConversion(`corpus ${name}; floe parquet convert --codec ${codec}`, input, inputReads, output, codec,
        {}, duckdbReadsInput);
    });
  }
});
