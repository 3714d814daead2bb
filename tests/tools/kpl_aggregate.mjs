// KPL-aggregates user records with AWS Labs' aws-kinesis-agg (an
// implementation of the aggregation format independent of floe's), for the
// Kinesis de-aggregation tests.
//
// Usage: node kpl_aggregate.mjs <records.json>
// records.json: [{"partitionKey": "...", "data_b64": "...", "explicitHashKey"?: "..."}]
// Prints the aggregated Kinesis records as JSON:
// [{"partitionKey": "...", "explicitHashKey"?: "...", "data_b64": "..."}]
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { aggregate } = require('aws-kinesis-agg');

const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const records = input.map((r) => ({
  partitionKey: r.partitionKey,
  explicitHashKey: r.explicitHashKey,
  data: Buffer.from(r.data_b64, 'base64'),
}));
const out = [];
aggregate(
  records,
  (encoded, callback) => {
    const entry = { partitionKey: encoded.partitionKey, data_b64: Buffer.from(encoded.data).toString('base64') };
    if (encoded.ExplicitHashKey) entry.explicitHashKey = encoded.ExplicitHashKey;
    out.push(entry);
    callback();
  },
  () => process.stdout.write(JSON.stringify(out)),
  (err) => {
    process.stderr.write(`aggregation failed: ${err}\n`);
    process.exit(1);
  },
);
