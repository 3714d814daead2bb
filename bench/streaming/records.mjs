// The change records the streaming benches produce: Debezium events of a
// 20-column customers-like table (~1 KB schemaless), in the JSON
// converter's two forms.
//   const { value } = debeziumRecords('schemaless' | 'wrapped');
//   value(key, version, op)  -> the record value (JSON text); op c | u | d
//   writeBenchConfig(dir, {name, bootstrap, topic, trigger}) -> pipeline.toml under dir
import fs from 'node:fs';
import path from 'node:path';

// The benches' pipeline: the topic merged by id, newest by source.lsn then
// offset, SQLite catalog, no maintenance; FLOE_BENCH_KAFKA="k=v,k=v" adds
// [source.kafka] properties. Returns the config's path.
export function writeBenchConfig(dir, { name, bootstrap, topic, trigger = '' }) {
  const kafkaProperties = process.env.FLOE_BENCH_KAFKA
    ? `[source.kafka]\n${process.env.FLOE_BENCH_KAFKA.split(',').map((kv) => {
      const [k, v] = kv.split('=');
      return `"${k}" = "${v}"`;
    }).join('\n')}\n`
    : '';
  const config = path.join(dir, 'pipeline.toml');
  fs.writeFileSync(config, `name = "${name}"
[source]
discovery = "kafka"
uri = "kafka://${bootstrap}"
topics = ["${topic}"]
changes = "debezium"
${kafkaProperties}[target]
namespace = "inventory"
[merge]
keys = ["id"]
order_by = ["source.lsn", "kafka.offset"]
${trigger ? `[trigger]\n${trigger}\n` : ''}[maintenance]
enabled = false
[catalog]
type = "sql"
uri = "sqlite://${path.join(dir, 'catalog.db')}"
warehouse = "${path.join(dir, 'warehouse')}"
[state]
dir = "${path.join(dir, 'state')}"
`);
  return config;
}

export function debeziumRecords(form) {
  // 20 columns of a customers-like table, with the Connect schema the JSON converter would write.
  const columns = [
    ['id', 'int64'], ['first_name', 'string'], ['last_name', 'string'], ['email', 'string'],
    ['street', 'string'], ['city', 'string'], ['zip', 'string'], ['country', 'string'],
    ['phone', 'string'], ['tier', 'int32'], ['score', 'double'], ['active', 'boolean'],
    ['created_at', 'int64', 'io.debezium.time.MicroTimestamp'], ['birth_date', 'int32', 'io.debezium.time.Date'],
    ['balance', 'bytes', 'org.apache.kafka.connect.data.Decimal', { scale: '2', 'connect.decimal.precision': '12' }],
    ['notes', 'string'], ['tags', 'string'], ['referrer', 'string'], ['locale', 'string'], ['version', 'int64'],
  ];
  const rowSchema = {
    type: 'struct', optional: true, name: 'bench.inventory.customers.Value',
    fields: columns.map(([field, type, name, parameters]) => ({
      field, type, optional: field !== 'id', ...(name ? { name, version: 1 } : {}), ...(parameters ? { parameters } : {}),
    })),
  };
  const valueSchema = {
    type: 'struct', optional: false, name: 'bench.inventory.customers.Envelope',
    fields: [
      { ...rowSchema, field: 'before' }, { ...rowSchema, field: 'after' },
      { type: 'struct', optional: false, name: 'io.debezium.connector.postgresql.Source', field: 'source',
        fields: [{ field: 'lsn', type: 'int64', optional: true }, { field: 'ts_ms', type: 'int64', optional: false }] },
      { field: 'op', type: 'string', optional: false }, { field: 'ts_ms', type: 'int64', optional: true },
    ],
  };
  let lsn = 1000;
  const pad = (s, n) => (s + 'x'.repeat(n)).slice(0, n);
  function value(key, version, op) {
    lsn += 8;
    const after = {
      id: key, first_name: pad(`First${key}`, 24), last_name: pad(`Last${key % 977}`, 24),
      email: `user${key}.${version}@example.com`, street: pad(`${key % 300} Main Street`, 40), city: pad('Springfield', 24),
      zip: String(10000 + (key % 89999)), country: 'US', phone: `+1 555 ${String(key).padStart(7, '0')}`,
      tier: key % 5, score: (key * 7919 % 100000) / 100, active: key % 3 !== 0,
      created_at: 1700000000000000 + key * 1000, birth_date: 7000 + (key % 15000),
      balance: Buffer.from([(version >> 8) & 0x7f, version & 0xff, key & 0xff]).toString('base64'),
      notes: pad(`note ${version} for ${key}`, 160), tags: pad('a,b,c', 60), referrer: pad('https://example.com/r', 60),
      locale: 'en_US', version,
    };
    const payload = { before: null, after: op === 'd' ? null : after, source: { lsn, ts_ms: 1700000000000 + lsn }, op, ts_ms: 1700000000000 + lsn };
    if (op === 'd') payload.before = { id: key };
    return JSON.stringify(form === 'wrapped' ? { schema: valueSchema, payload } : payload);
  }
  return { value };
}
