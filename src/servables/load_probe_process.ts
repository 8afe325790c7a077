// Entry of a load probe process (load_probe.ts): loads each version it is sent on an executor
// thread of its own, as the serving executors will, replays its warmup records, checks it
// (--verify_on_load) and runs every signature not checked once on made-up inputs, then
// unloads it and answers. Whatever a load does here — a native abort, a read that never
// ends, memory without bound — ends this process at worst, never the server.
import { ExecutorHost } from '../executors/executor_host.js';
import { ExecutorPool } from '../executors/executor_pool.js';
import { toStatusData } from '../errors/status.js';
import { seededInputs } from '../runtimes/verify/seeded_inputs.js';
import { verifyVersion } from './version_verifier.js';
import type { ProbeReply, ProbeRequest, ProbeSettings } from './load_probe.js';

const settings = JSON.parse(process.argv[2]) as ProbeSettings;
const host = ExecutorHost.start({ threads: 1, runtime: settings.runtime, engine: settings.engine, workerFile: settings.workerFile });

async function probe(request: ProbeRequest): Promise<ProbeReply> {
  const pool = await ExecutorPool.open({ ...request.load, threads: 1, runtime: settings.runtime, host });
  try {
    const report = request.verify ? await verifyVersion(pool, settings.runtime, request.load.versionDir, request.load.tags) : undefined;
    // First runs of what the check did not run: a kernel that aborts on its first call does it here.
    for (const [key, spec] of Object.entries(pool.description.signatures)) {
      if (!pool.description.engines[key] || report?.verified[key] || report?.refused[key]) continue;
      const seeded = seededInputs(spec);
      if ('inputs' in seeded) await pool.run(key, seeded.inputs).catch(() => {});
    }
    return { ok: true, report };
  } finally {
    await pool.close();
  }
}

process.on('message', (request: ProbeRequest) => {
  void probe(request)
    .catch((e: unknown): ProbeReply => ({ ok: false, error: toStatusData(e) }))
    .then((reply) => process.send!({ ...reply, rssBytes: process.memoryUsage.rss() }));
});
// The server's end of the channel gone: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
