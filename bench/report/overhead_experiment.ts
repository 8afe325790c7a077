// Serving overhead: tfgate's :predict on the tiny half_plus_two model against a bare Hono
// JSON echo route (the floor any Hono server pays), same body, same client, rounds
// interleaved, best of each kept.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoadInWorker } from '../load/load_worker.js';
import { hasWrk, runWrk } from '../load/wrk.js';
import { REPO, startNodeProcess, startTfgate, stopProcess, waitModelAvailable } from './processes.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface OverheadResult {
  client: string;
  echoRps: number;
  predictRps: number;
  /** predict ÷ echo requests/s. */
  ratio: number;
}

export async function runOverheadExperiment(seconds: number, rounds: number, connections: number): Promise<OverheadResult> {
  const body = JSON.stringify({ instances: [1.0, 2.0, 5.0] });
  const echo = await startNodeProcess([path.join(here, '..', 'load', 'echo_server.js')], /listening (\d+)/);
  const tfgate = await startTfgate('half_plus_two', path.join(REPO, 'model_repository', 'half_plus_two'), []);
  try {
    await waitModelAvailable(tfgate.port, 'half_plus_two');
    const urls = { echo: `http://127.0.0.1:${echo.port}/echo`, predict: `http://127.0.0.1:${tfgate.port}/v1/models/half_plus_two:predict` };
    const useWrk = hasWrk();
    const measure = async (url: string) => (useWrk ? runWrk(url, body, connections, seconds).rps : (await runLoadInWorker({ url, body, mode: { kind: 'concurrency', connections }, durationMs: seconds * 1000 })).rps);
    // Unmeasured first: JIT, the runtime's first-shape sessions and the connections' set-up
    // otherwise land in the first round, which a quick run (one round) would report.
    const warmUp = (url: string) => runLoadInWorker({ url, body, mode: { kind: 'concurrency', connections }, durationMs: 1000 });
    await warmUp(urls.echo);
    await warmUp(urls.predict);
    let echoRps = 0;
    let predictRps = 0;
    for (let round = 0; round < rounds; round++) {
      echoRps = Math.max(echoRps, await measure(urls.echo));
      predictRps = Math.max(predictRps, await measure(urls.predict));
    }
    return { client: `${useWrk ? 'wrk' : 'tfgate generator'}, ${connections} connections`, echoRps, predictRps, ratio: predictRps / echoRps };
  } finally {
    await Promise.all([stopProcess(echo.proc), stopProcess(tfgate.proc)]);
  }
}
