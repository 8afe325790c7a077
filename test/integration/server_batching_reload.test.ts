// Editing --batching_parameters_file while the server is under load: the new parameters
// apply to the next batches with no restart and no failed request; a bad edit is logged
// and refused, and the parameters in force stay. The padding in each answer's
// Server-Timing (`batch;desc="rows/padded rows"`) shows which parameters formed its batch.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fixtureModel } from '../helpers/paths.js';
import { postJson, startServer, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';

const params = (max: number, timeoutMicros: number) => `max_batch_size { value: ${max} }
batch_timeout_micros { value: ${timeoutMicros} }
max_enqueued_batches { value: 1000 }
num_batch_threads { value: 2 }
allowed_batch_sizes: ${max}
`;

describe('batching.cfg edited under load (real process)', () => {
  let server: RunningServer;
  let cfg: string;

  before(async () => {
    const root = tempDir();
    cfg = path.join(root, 'batching.cfg');
    fs.writeFileSync(cfg, params(4, 1000));
    const hp2 = path.dirname(fixtureModel('saved_model_half_plus_two_cpu', '00000123'));
    server = await startServer(
      [
        '--model_name=hp2',
        `--model_base_path=${hp2}`,
        '--enable_batching',
        `--batching_parameters_file=${cfg}`,
        '--batching_parameters_poll_wait_seconds=1',
      ],
      { readyPath: '/v1/models/hp2' },
    );
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  /** Resolves when the server's log has `n` lines matching `re`. */
  async function logged(re: RegExp, n = 1, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((server.logs().match(new RegExp(re.source, 'g')) ?? []).length < n) {
      if (Date.now() > deadline) throw new Error(`no log line ${re} in:\n${server.logs()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('applies an edit to new batches with zero failed requests, and refuses a bad edit keeping the old parameters', async () => {
    const padded = new Map<number, number>(); // padded batch size → answers
    const failures: string[] = [];
    let phase = 'before';
    const byPhase: Record<string, Set<number>> = { before: new Set(), after: new Set(), bad: new Set() };
    let running = true;
    // 6 clients sending one row each, back to back, the whole time.
    const client = async (k: number) => {
      for (let i = 0; running; i++) {
        const x = k * 1000 + i;
        const seen = phase;
        const r = await postJson(server.url('/v1/models/hp2:predict'), { instances: [[x]] }).catch((e: Error) => ({
          status: 0,
          json: undefined,
          text: e.message,
          headers: new Headers(),
        }));
        if (r.status !== 200) {
          failures.push(`${r.status} ${r.text}`);
          continue;
        }
        const body = r.json as { predictions: number[][] };
        if (Math.abs(body.predictions[0][0] - (x / 2 + 2)) > 1e-3) failures.push(`wrong answer for ${x}: ${JSON.stringify(body)}`);
        const desc = /batch;desc="\d+\/(\d+)"/.exec(r.headers.get('server-timing') ?? '');
        if (!desc) {
          failures.push(`no batch in Server-Timing: ${r.headers.get('server-timing')}`);
          continue;
        }
        const p = Number(desc[1]);
        padded.set(p, (padded.get(p) ?? 0) + 1);
        if (seen === phase) byPhase[seen].add(p);
      }
    };
    const clients = Array.from({ length: 6 }, (_, k) => client(k));
    const settle = () => new Promise((r) => setTimeout(r, 1500));

    await settle();
    assert.deepEqual([...byPhase.before], [4], 'batches padded to the only allowed size, 4');

    fs.writeFileSync(cfg, params(8, 20000));
    await logged(/Batching parameters reloaded from/);
    await new Promise((r) => setTimeout(r, 100)); // batches formed before the edit drain
    phase = 'after';
    await settle();

    fs.writeFileSync(cfg, 'max_batch_size { value: "lots" }\n');
    await logged(/Rejected the edit of batching parameters/);
    phase = 'bad';
    await settle();

    running = false;
    await Promise.all(clients);
    assert.deepEqual(failures, [], 'no request failed');
    assert.deepEqual([...byPhase.after], [8], `after the edit, batches padded to 8: ${JSON.stringify([...padded])}`);
    assert.deepEqual([...byPhase.bad], [8], 'after the bad edit, the parameters in force stay');
    assert.match(server.logs(), /"level":50.*Rejected the edit of batching parameters .*batching\.cfg/);
    const total = [...padded.values()].reduce((a, b) => a + b, 0);
    assert.ok(total > 100, `requests answered under load: ${total}`);
  });
});
