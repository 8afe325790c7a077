// A version downloaded from an S3-compatible server (s3rver on loopback, in a child process so
// that its own work is not counted) into the model cache, as a server does before loading a
// version from s3://: the throughput, and how long the event loop was held meanwhile
// (perf_hooks' event-loop delay, the measure behind nodejs_eventloop_lag_seconds) — the
// download streams to disk, so the loop should stay free for requests. Prints the figures of
// one run; nothing is asserted.
//   npm run bench:storage [-- --mb 128 --objects 4]
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { s3SettingsFromEnv, s3Storage } from '../src/storage/s3_storage.js';
import { VersionCache } from '../src/storage/version_cache.js';
import { S3Fixture, S3RVER_KEY } from '../test/helpers/s3_server.js';
import { tempDir } from '../test/helpers/temp.js';
import { numberArg } from './load/args.js';

const MB = numberArg('mb', 128);
const OBJECTS = numberArg('objects', 4);

/** The child: an s3rver holding one version of MB megabytes, its endpoint sent to the parent. */
async function serve(): Promise<void> {
  const s3 = await S3Fixture.start();
  await s3.createBucket('models');
  const each = Math.ceil((MB * 2 ** 20) / OBJECTS);
  for (let i = 0; i < OBJECTS; i++)
    await s3.put(
      'models',
      `m/1/variables/variables.data-${String(i).padStart(5, '0')}-of-${String(OBJECTS).padStart(5, '0')}`,
      randomBytes(each),
    );
  await s3.put('models', 'm/1/saved_model.pb', randomBytes(1024));
  process.send!(s3.endpoint);
  process.once('disconnect', () => void s3.stop().then(() => process.exit(0)));
}

async function measure(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), [...process.argv.slice(2), '--serve'], { stdio: 'inherit' });
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      child.once('message', (m) => resolve(String(m)));
      child.once('exit', (code) => reject(new Error(`the s3rver child exited with ${code}`)));
    });
    process.env.AWS_ACCESS_KEY_ID = S3RVER_KEY.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = S3RVER_KEY.secretAccessKey;
    const storage = s3Storage(s3SettingsFromEnv({ S3_ENDPOINT: endpoint }));
    const cache = new VersionCache({ root: tempDir('tfgate-bench-cache-'), maxBytes: 0 });
    const ms = (ns: number) => (ns / 1e6).toFixed(1);
    // The same measure over a second of doing nothing: what the machine's load alone adds.
    const idle = monitorEventLoopDelay({ resolution: 10 });
    idle.enable();
    await new Promise((r) => setTimeout(r, 1000));
    idle.disable();
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const t0 = performance.now();
    const copy = await cache.fetch(storage, 's3://models/m/1', 'version 1 of model m');
    const seconds = (performance.now() - t0) / 1000;
    lag.disable();
    console.log(
      `downloaded ${MB} MB in ${OBJECTS} objects (+ saved_model.pb) in ${seconds.toFixed(2)} s: ${(MB / seconds).toFixed(0)} MB/s`,
    );
    console.log(
      `event-loop delay while downloading: p50 ${ms(lag.percentile(50))} ms, p99 ${ms(lag.percentile(99))} ms, max ${ms(lag.max)} ms (10 ms timer resolution); idle for 1 s before: p99 ${ms(idle.percentile(99))} ms, max ${ms(idle.max)} ms`,
    );
    console.log(`rss of the downloading process: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`);
    await copy.remove();
    await cache.close();
  } finally {
    child.disconnect();
  }
}

await (process.argv.includes('--serve') ? serve() : measure());
