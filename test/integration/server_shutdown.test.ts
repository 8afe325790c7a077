// SIGTERM on the real server process with requests in flight: every request already received
// is answered, new connections are refused, and the process exits 0.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { requestOutcome, until, type Outcome } from '../helpers/http_outcome.js';
import { FIXTURES, MODELS } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { writeConvSavedModel } from '../../test_util/savedmodel/model_zoo.js';

const HW = 64;

describe('graceful shutdown (real process)', () => {
  it('SIGTERM while requests wait in a batch queue: all answered, then exit 0', async () => {
    const root = tempDir();
    await writeConvSavedModel(path.join(root, 'conv', '1'), {
      height: HW,
      width: HW,
      channels: 1,
      filters: [32, 64],
      kernelSize: 3,
      classes: 4,
      seed: 5,
    });
    // A batch of up to 16 rows that waits 2 s for more: the eight requests sit in its queue,
    // received and parsed, until the scrape below has seen all eight — then SIGTERM. (Racing
    // the signal against the requests' arrival would let one reach a server already draining.)
    const batching = path.join(root, 'batching.cfg');
    fs.writeFileSync(
      batching,
      'max_batch_size { value: 16 }\nbatch_timeout_micros { value: 2000000 }\nmax_enqueued_batches { value: 4 }\nnum_batch_threads { value: 1 }\n',
    );
    const server = await startServer(
      [
        `--model_base_path=${path.join(root, 'conv')}`,
        '--model_name=conv',
        '--num_executors=1',
        '--access_log',
        '--enable_batching',
        `--batching_parameters_file=${batching}`,
        `--monitoring_config_file=${path.join(FIXTURES, 'configs', 'monitoring_config.txt')}`,
      ],
      { readyPath: '/v1/models/conv' },
    );
    await waitAvailable(server, ['conv']);
    const body = JSON.stringify({ instances: [Array.from({ length: HW }, () => Array.from({ length: HW }, () => [0.5]))] });
    const requests = Array.from({ length: 8 }, () => postJson(server.url('/v1/models/conv:predict'), body));
    const queued = async () =>
      Number(
        /^tfgate_batch_queue_rows\{model_name="conv"\} (\d+)$/m.exec(
          await (await fetch(server.url('/monitoring/prometheus/metrics'))).text(),
        )?.[1] ?? 0,
      );
    const deadline = Date.now() + 30_000;
    while ((await queued()) < 8) {
      if (Date.now() > deadline) throw new Error(`the eight requests never waited in the batch queue together:\n${server.logs()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const exited = server.stop(); // SIGTERM
    const answers = await Promise.all(requests);
    assert.deepEqual(
      answers.map((a) => a.status),
      new Array(8).fill(200),
    );
    assert.equal(await exited, 0);
    await assert.rejects(fetch(server.url('/v1/models/conv')), 'nothing listens any more');
    const lines = server
      .logs()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(
      lines.some((l) => l.msg === 'SIGTERM received: draining (at most 30 s) and unloading'),
      'JSON log lines (pino)',
    );
    const logged = lines.filter((l) => l.msg === 'request' && l.path === '/v1/models/conv:predict');
    assert.equal(logged.length, 8, 'one access-log line per predict');
    assert.ok(logged.every((l) => l.status === 200 && typeof l.ms === 'number' && l.method === 'POST'));
  });
});

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');
const PREDICT = '/v1/models/default:predict';

async function startHalfPlusTwo(extra: string[]): Promise<RunningServer> {
  const server = await startServer([`--model_base_path=${HP2}`, '--file_system_poll_wait_seconds=0', '--num_executors=1', ...extra], {
    readyPath: '/v1/models/default',
  });
  await waitAvailable(server, ['default']);
  return server;
}

const exitCode = (server: RunningServer) =>
  new Promise<number | null>((resolve) =>
    server.proc.exitCode !== null ? resolve(server.proc.exitCode) : server.proc.once('exit', (code) => resolve(code)),
  );
const sigtermLogged = (server: RunningServer) => server.logs().includes('SIGTERM received');

/** A predict whose answer is about 25 MB of JSON: many rows through half_plus_two. */
const BIG_ROWS = 2_200_000;
const bigBody = () => JSON.stringify({ instances: new Array(BIG_ROWS).fill(1.2345678) });

describe('graceful shutdown under keep-alive load and with large answers (real process)', () => {
  it('SIGTERM while 16 keep-alive clients hammer predict: every request answered 200 or refused before it was read, none cut; exit 0 within the bound', async (t) => {
    const server = await startHalfPlusTwo(['--shutdown_drain_seconds=10']);
    const expected = Buffer.from((await postJson(server.url(PREDICT), { instances: [1, 2, 5] })).text);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    let signalled = false;
    const seen = {
      answered: 0,
      answeredAfterSignal: 0,
      closeAfterSignal: 0,
      refused: [] as string[],
      refusedBeforeSignal: [] as string[],
      cut: [] as string[],
      wrong: [] as string[],
    };
    const client = async () => {
      for (;;) {
        const afterSignal = signalled;
        const o: Outcome = await requestOutcome({
          port: server.port,
          method: 'POST',
          path: PREDICT,
          body: '{"instances": [1, 2, 5]}',
          agent,
        });
        if (o.kind === 'cut') return void seen.cut.push(o.why);
        if (o.kind === 'refused') {
          if (!afterSignal && !signalled) return void seen.refusedBeforeSignal.push(o.why);
          seen.refused.push(o.why);
          return; // the server no longer takes connections: this client is done
        }
        seen.answered++;
        if (o.status !== 200 || !o.body.equals(expected)) seen.wrong.push(`${o.status} ${o.body.toString().slice(0, 200)}`);
        if (signalled) {
          seen.answeredAfterSignal++;
          if (o.connectionClose) seen.closeAfterSignal++;
        }
        if (server.proc.exitCode !== null) return;
      }
    };
    const clients = Array.from({ length: 16 }, client);
    await until(() => seen.answered >= 400 || seen.cut.length + seen.refusedBeforeSignal.length > 0, 'keep-alive load');
    const exited = exitCode(server);
    signalled = true;
    server.proc.kill('SIGTERM');
    await Promise.all(clients);
    const code = await exited;
    agent.destroy();
    const diagnosis = `${JSON.stringify({ ...seen, refused: seen.refused.length })}\n${server.logs().slice(-3000)}`;
    t.diagnostic(JSON.stringify({ code, ...seen, refused: seen.refused }));
    assert.deepEqual(seen.refusedBeforeSignal, [], diagnosis);
    assert.deepEqual(seen.cut, [], diagnosis);
    assert.deepEqual(seen.wrong, [], diagnosis);
    assert.equal(code, 0, diagnosis);
    assert.ok(!server.logs().includes('drain took longer'), diagnosis);
  });

  it('SIGTERM with three ~25 MB answers held back by slow readers: all three arrive byte for byte, then exit 0', async (t) => {
    // The answers' own time is not under test: a loaded machine may take longer than the default 30 s REST timeout for three of them.
    const server = await startHalfPlusTwo(['--shutdown_drain_seconds=60', '--rest_api_timeout_in_ms=600000']);
    const body = bigBody();
    const reference = await requestOutcome({ port: server.port, method: 'POST', path: PREDICT, body, agent: false });
    assert.equal(reference.kind, 'answered');
    const expected = (reference as Extract<Outcome, { kind: 'answered' }>).body;
    assert.ok(expected.length > 20e6, `answer of ${expected.length} bytes`);
    const t0 = Date.now();
    const held: http.IncomingMessage[] = [];
    // Each reader pauses as soon as the answer starts: its bytes wait in the server's buffers.
    const requests = Array.from({ length: 3 }, () =>
      requestOutcome({
        port: server.port,
        method: 'POST',
        path: PREDICT,
        body,
        agent: false,
        onResponse: (res) => (res.pause(), held.push(res)),
      }),
    );
    await until(() => held.length === 3, 'three answers begun');
    const exited = exitCode(server);
    server.proc.kill('SIGTERM');
    await until(() => sigtermLogged(server), 'the server to take SIGTERM');
    const tSignal = Date.now();
    held.forEach((res) => res.resume());
    const outcomes = await Promise.all(requests);
    const tRead = Date.now();
    const code = await exited;
    t.diagnostic(`answers begun ${tSignal - t0} ms, read ${tRead - tSignal} ms, exit after ${Date.now() - tRead} ms`);
    const diagnosis = `${outcomes.map((o) => (o.kind === 'answered' ? `${o.status} ${o.body.length} bytes` : `${o.kind}: ${o.why}`)).join('; ')}\n${server.logs().slice(-3000)}`;
    t.diagnostic(
      `exit ${code}; ${outcomes.map((o) => (o.kind === 'answered' ? `${o.status} ${o.body.length} bytes` : `${o.kind}: ${o.why}`)).join('; ')}`,
    );
    for (const o of outcomes) {
      assert.equal(o.kind, 'answered', diagnosis);
      const a = o as Extract<Outcome, { kind: 'answered' }>;
      assert.equal(a.status, 200, diagnosis);
      assert.ok(a.body.equals(expected), `${a.body.length} of ${expected.length} bytes, equal: ${a.body.equals(expected)}; ${diagnosis}`);
    }
    assert.equal(code, 0, diagnosis);
  });

  it('an answer the client never reads: at --shutdown_drain_seconds the process exits 1 and logs the request it cut', async () => {
    const server = await startHalfPlusTwo(['--shutdown_drain_seconds=2']);
    let stuck: http.IncomingMessage | undefined;
    const request = requestOutcome({
      port: server.port,
      method: 'POST',
      path: PREDICT,
      body: bigBody(),
      agent: false,
      onResponse: (res) => (res.pause(), (stuck = res)),
    });
    await until(() => stuck !== undefined, 'the answer to begin');
    const exited = exitCode(server);
    server.proc.kill('SIGTERM');
    const code = await exited;
    stuck!.resume(); // the reader wakes up only now, to see what the exit left it
    const outcome = await request;
    assert.equal(code, 1, server.logs());
    assert.equal(outcome.kind, 'cut', JSON.stringify(outcome));
    const lines = server
      .logs()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const cut = lines.filter((l) => l.event === 'request_cut');
    assert.equal(cut.length, 1, server.logs());
    assert.equal(cut[0].method, 'POST');
    assert.equal(cut[0].path, PREDICT);
  });
});
