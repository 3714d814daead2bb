// Starts s3rver (a local S3 server) for floe's S3 tests.
//
// Usage: node --openssl-legacy-provider s3rver.mjs <data-dir> <bucket>...
// Binds 127.0.0.1 on a free port, creates the buckets, then prints
// "ready <port>" on stdout. Exits when stdin closes or on SIGTERM, so a test
// that dies does not leave the server behind. s3rver accepts any signature for
// the access key "S3RVER" (it does not verify SigV4) and ignores If-None-Match;
// node needs --openssl-legacy-provider or truncated listings answer 500.
import S3rver from 's3rver';

const [directory, ...buckets] = process.argv.slice(2);
if (!directory) {
  console.error('usage: s3rver.mjs <data-dir> <bucket>...');
  process.exit(2);
}

const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: buckets.map((name) => ({ name, configs: [] })),
});

const { port } = await server.run();
process.stdout.write(`ready ${port}\n`);

const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
