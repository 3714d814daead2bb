// Reproducible random Parquet inputs written by DuckDB, for property tests.
//
// Contract: generateRandomParquet(conn, path, seed) writes the same file for
// the same seed and DuckDB version (the connection must run with one thread;
// DuckDB's random() is seeded with setseed). The schema is random too: every
// scalar kind below appears once, plus random nested columns (struct, list,
// map, list of structs, struct of lists, list of lists) built from random
// scalar kinds; each column and nested field gets a null fraction of 0, 20%
// or 100%, and extreme values (integer min/max, NaN, ±Infinity, -0.0,
// empty/long/non-ASCII strings, empty lists) appear at fixed row positions.

// Deterministic PRNG for the schema choices (mulberry32).
export function makeRng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)],
    shuffle: (items) => {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j], copy[i]];
      }
      return copy;
    },
  };
}

const q = (s) => `'${s.replace(/'/g, "''")}'`;

// `v` is the SQL expression for a per-row/per-element integer that drives the
// extreme values; it is `i` at the top level and a lambda variable inside lists.
function intKind(type, min, max) {
  return {
    name: type.toLowerCase(),
    type,
    expr: (v, rng) => {
      const narrow = rng.next() < 0.3;  // few distinct values: dictionary pages, bit packing
      const lo = Number(min);
      const span = (Number(max) - lo) * 0.999;
      const random = narrow
        ? `(${lo < 0 ? -5 : 0} + floor(random() * 10))`
        : `(${lo} + floor(random() * ${span}))`;
      return `CASE WHEN ${v} % 97 = 0 THEN ${q(min)}::${type} WHEN ${v} % 89 = 1 THEN ${q(max)}::${type} ` +
        `ELSE ${random}::${type} END`;
    },
  };
}

function floatKind(type, max, tiny) {
  return {
    name: type.toLowerCase(),
    type,
    expr: (v) =>
      `CASE ${v} % 31 WHEN 0 THEN 'NaN'::${type} WHEN 1 THEN 'Infinity'::${type} ` +
      `WHEN 2 THEN '-Infinity'::${type} WHEN 3 THEN '-0.0'::${type} WHEN 4 THEN ${q(max)}::${type} ` +
      `WHEN 5 THEN ${q('-' + max)}::${type} WHEN 6 THEN ${q(tiny)}::${type} WHEN 7 THEN 0::${type} ` +
      `ELSE ((random() - 0.5) * pow(10, floor(random() * 16) - 6))::${type} END`,
  };
}

function decimalKind(precision, scale) {
  const type = `DECIMAL(${precision},${scale})`;
  const nines = '9'.repeat(precision - scale) + (scale > 0 ? '.' + '9'.repeat(scale) : '');
  return {
    name: `decimal_${precision}_${scale}`,
    type,
    expr: (v) =>
      `CASE ${v} % 43 WHEN 0 THEN ${q(nines)}::${type} WHEN 1 THEN ${q('-' + nines)}::${type} ` +
      `WHEN 2 THEN 0::${type} ` +
      `ELSE ((random() * 2 - 1) * 0.999 * pow(10, ${precision - scale} * random()))::${type} END`,
  };
}

// A random microsecond offset within ±`spanUs` of the epoch.
const randomMicros = (spanUs) => `to_microseconds((floor(random() * ${2 * spanUs}) - ${spanUs})::BIGINT)`;

export const SCALAR_KINDS = [
  { name: 'boolean', type: 'BOOLEAN', expr: () => `random() < 0.5` },
  intKind('TINYINT', '-128', '127'),
  intKind('SMALLINT', '-32768', '32767'),
  intKind('INTEGER', '-2147483648', '2147483647'),
  intKind('BIGINT', '-9223372036854775808', '9223372036854775807'),
  intKind('UTINYINT', '0', '255'),
  intKind('USMALLINT', '0', '65535'),
  intKind('UINTEGER', '0', '4294967295'),
  intKind('UBIGINT', '0', '18446744073709551615'),
  floatKind('FLOAT', '3.4028235e38', '1e-45'),
  floatKind('DOUBLE', '1.7976931348623157e308', '5e-324'),
  decimalKind(4, 2),
  decimalKind(9, 3),
  decimalKind(18, 6),
  decimalKind(38, 10),
  {
    name: 'date',
    type: 'DATE',
    expr: (v) =>
      `CASE ${v} % 53 WHEN 0 THEN DATE '0001-01-01' WHEN 1 THEN DATE '9999-12-31' ` +
      `ELSE DATE '1970-01-01' + (floor(random() * 100000) - 50000)::INTEGER END`,
  },
  {
    name: 'time',
    type: 'TIME',
    expr: (v) =>
      `CASE ${v} % 53 WHEN 0 THEN TIME '00:00:00' WHEN 1 THEN TIME '23:59:59.999999' ` +
      `ELSE TIME '00:00:00' + to_microseconds(floor(random() * 86400000000)::BIGINT) END`,
  },
  {
    name: 'timestamp',
    type: 'TIMESTAMP',
    expr: (v) =>
      `CASE ${v} % 53 WHEN 0 THEN TIMESTAMP '0001-01-01 00:00:00' ` +
      `WHEN 1 THEN TIMESTAMP '9999-12-31 23:59:59.999999' ` +
      `ELSE TIMESTAMP '1970-01-01' + ${randomMicros(1e16)} END`,
  },
  {
    name: 'timestamp_ms',
    type: 'TIMESTAMP_MS',
    expr: () => `(TIMESTAMP '1970-01-01' + ${randomMicros(1e16)})::TIMESTAMP_MS`,
  },
  {
    name: 'timestamp_ns',
    type: 'TIMESTAMP_NS',
    expr: (v) =>
      `CASE ${v} % 53 WHEN 0 THEN make_timestamp_ns(0) ` +
      `ELSE make_timestamp_ns((floor(random() * 1.8e18) - 9e17)::BIGINT) END`,
  },
  {
    name: 'timestamptz',
    type: 'TIMESTAMPTZ',
    expr: () => `(TIMESTAMP '1970-01-01' + ${randomMicros(4e15)})::TIMESTAMPTZ`,
  },
  {
    name: 'varchar',
    type: 'VARCHAR',
    expr: (v, rng) => {
      const body = rng.next() < 0.4
        ? `'cat-' || floor(random() * 8)::INTEGER`  // dictionary-friendly
        : `md5(random()::VARCHAR) || repeat('x', floor(random() * 20)::INTEGER)`;
      return `CASE ${v} % 37 WHEN 0 THEN '' WHEN 1 THEN repeat('long string ', 100 + ${v} % 400) ` +
        `WHEN 2 THEN 'ünïcødé ✓ 日本語 🧊 ' || ${v} ELSE ${body} END`;
    },
  },
  {
    name: 'blob',
    type: 'BLOB',
    expr: (v) =>
      `CASE ${v} % 41 WHEN 0 THEN ''::BLOB WHEN 1 THEN '\\x00\\xFF\\x80'::BLOB ` +
      `ELSE unhex(md5(random()::VARCHAR)) END`,
  },
  { name: 'uuid', type: 'UUID', expr: () => `md5(random()::VARCHAR)::UUID` },
  {
    name: 'enum',
    type: 'floe_mood',
    setup: `CREATE TYPE floe_mood AS ENUM ('sad', 'ok', 'happy')`,
    expr: () => `(['sad', 'ok', 'happy'])[1 + floor(random() * 3)::INTEGER]`,
  },
];

// Scalar kinds allowed inside nested values (ENUM needs a named type).
const NESTABLE = SCALAR_KINDS.filter((k) => !k.setup);

// Weighted so that most columns carry values; every fraction still appears.
const NULL_FRACTIONS = [0, 0, 0.2, 0.2, 1];

function withNulls(expr, type, fraction) {
  if (fraction === 0) return `CAST(${expr} AS ${type})`;
  if (fraction === 1) return `CAST(NULL AS ${type})`;
  return `CAST(CASE WHEN random() < ${fraction} THEN NULL ELSE ${expr} END AS ${type})`;
}

// Builds {type, expr} for a random value of `shape`; `depth` names lambda variables.
function buildNested(shape, v, rng, depth) {
  const lambdaVar = `k${depth}`;
  const child = (childShape) => buildNested(childShape, `(${v} + ${lambdaVar})`, rng, depth + 1);
  // Null fraction for nested fields and list elements; 100% is rare here so
  // that most nested columns still carry values.
  const innerNulls = () => rng.pick([0, 0, 0.2, 0.2, 1]);
  const maxLength = rng.pick([2, 4, 8]);
  const lengthExpr = `floor(random() * ${maxLength})::BIGINT`;
  switch (shape.kind) {
    case 'scalar': {
      const kind = shape.scalar;
      return { type: kind.type, expr: kind.expr(v, rng) };
    }
    case 'struct': {
      const fields = shape.fields.map((f, index) => {
        const built = buildNested(f, v, rng, depth);
        return { name: `f${index}_${f.label}`, type: built.type, expr: withNulls(built.expr, built.type, innerNulls()) };
      });
      return {
        type: `STRUCT(${fields.map((f) => `"${f.name}" ${f.type}`).join(', ')})`,
        expr: `{${fields.map((f) => `'${f.name}': ${f.expr}`).join(', ')}}`,
      };
    }
    case 'list': {
      const element = child(shape.element);
      const type = `${element.type}[]`;
      return {
        type,
        expr: `CASE WHEN ${v} % 13 = 0 THEN CAST([] AS ${type}) ELSE list_transform(range(${lengthExpr}), ` +
          `lambda ${lambdaVar}: ${withNulls(element.expr, element.type, innerNulls())}) END`,
      };
    }
    case 'map': {
      const value = child(shape.value);
      const type = `MAP(VARCHAR, ${value.type})`;
      return {
        type,
        expr: `map_from_entries(list_transform(range(${lengthExpr}), lambda ${lambdaVar}: ` +
          `{'key': 'key-' || ${lambdaVar}, 'value': ${withNulls(value.expr, value.type, innerNulls())}}))`,
      };
    }
    default:
      throw new Error(`unknown shape ${shape.kind}`);
  }
}

const scalarShape = (rng) => {
  const scalar = rng.pick(NESTABLE);
  return { kind: 'scalar', scalar, label: scalar.name };
};

// The nested column shapes every input includes, with random leaf kinds.
function nestedShapes(rng) {
  const s = () => scalarShape(rng);
  return [
    { label: 'struct', kind: 'struct', fields: [s(), s(), { label: 'inner', kind: 'struct', fields: [s(), s()] }] },
    { label: 'list', kind: 'list', element: s() },
    { label: 'map', kind: 'map', value: s() },
    { label: 'list_of_structs', kind: 'list', element: { label: 'item', kind: 'struct', fields: [s(), s()] } },
    {
      label: 'struct_of_lists', kind: 'struct',
      fields: [{ label: 'xs', kind: 'list', element: s() }, s(), { label: 'ys', kind: 'list', element: s() }],
    },
    { label: 'list_of_lists', kind: 'list', element: { label: 'inner', kind: 'list', element: s() } },
  ];
}

// Returns {rows, columns: [{name, type}], compression, sql} after writing `path`.
export async function generateRandomParquet(conn, path, seed, options = {}) {
  const rng = makeRng(seed);
  const rows = options.rows ?? 2500 + rng.int(1500);
  const compression = options.compression ?? rng.pick(['snappy', 'zstd', 'gzip', 'uncompressed']);
  const columns = [];
  for (const kind of SCALAR_KINDS) {
    if (kind.setup) {
      try {
        await conn.run(kind.setup);
      } catch (e) {
        if (!/already exists/i.test(String(e.message))) throw e;
      }
    }
    const fraction = rng.pick(NULL_FRACTIONS);
    columns.push({ name: `c_${kind.name}`, type: kind.type, expr: withNulls(kind.expr('i', rng), kind.type, fraction) });
  }
  for (const shape of nestedShapes(rng)) {
    const built = buildNested(shape, 'i', rng, 0);
    const fraction = rng.pick(NULL_FRACTIONS);
    columns.push({ name: `n_${shape.label}`, type: built.type, expr: withNulls(built.expr, built.type, fraction) });
  }
  const ordered = rng.shuffle(columns);
  await conn.run(`SELECT setseed(${((seed % 1000) + 1) / 1001})`);
  const select = ordered.map((c) => `${c.expr} AS "${c.name}"`).join(',\n  ');
  const sql = `COPY (SELECT\n  ${select}\nFROM range(${rows}) t(i)) TO ${q(path)} ` +
    `(FORMAT parquet, COMPRESSION ${compression}, ROW_GROUP_SIZE 2048)`;
  await conn.run(sql);
  return { rows, compression, columns: ordered.map(({ name, type }) => ({ name, type })), sql };
}
