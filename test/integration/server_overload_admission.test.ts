// Overload with large requests, against the real process, batching on and off: 256 clients
// each send 4 requests of ~150 KB of JSON (a 96×96×3 image) as fast as they are answered, to
// a version whose queue holds a handful. Each client sends the first half of its body, then
// the rest after HOLD_MS: the excess must be refused before its body is read or parsed, so
// some 503s arrive while their body is still half sent (before admission moved ahead of the
// body, none could: every request was read to its end and parsed first, the refused excess
// taking the CPU the executor needed). Every answer is 200 or the queue's own 503; RSS grows
// less than 160 MB (a sanity bound: ~90-110 MB here, the crowd's sockets and the queue); the
// server stays up, the model AVAILABLE throughout, and the next requests are served.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';
import { mb, rssBytes, rssSampler } from '../helpers/rss.js';
import { writeConvSavedModel } from '../../test_util/savedmodel/model_zoo.js';

const HW = 96;
const CLIENTS = 256;
const REQUESTS_PER_CLIENT = 4;
const RSS_GROWTH_LIMIT = 160 * 2 ** 20;
/** Pacing, not a measurement: how long a client waits between the halves of its body. */
const HOLD_MS = 200;

interface Answer {
  status: number;
  text: string;
  /** Answered before the second half of its body was sent. */
  unread: boolean;
}

function overloadCase(label: string, serverArgs: (root: string) => string[], refusal: RegExp) {
  describe(`overload with large requests, ${label} (real process)`, () => {
    let server: RunningServer;
    let body: string;

    before(async () => {
      const root = tempDir();
      await writeConvSavedModel(path.join(root, 'conv', '1'), {
        height: HW,
        width: HW,
        channels: 3,
        filters: [8],
        kernelSize: 3,
        classes: 4,
        seed: 5,
      });
      body = JSON.stringify({
        instances: [
          Array.from({ length: HW }, (_, i) => Array.from({ length: HW }, (_, j) => [((i + j) % 4) / 4, (i % 4) / 4, (j % 4) / 4])),
        ],
      });
      server = await startServer(
        ['--model_name=conv', `--model_base_path=${path.join(root, 'conv')}`, '--num_executors=1', ...serverArgs(root)],
        { readyPath: '/v1/models/conv' },
      );
      await waitAvailable(server, ['conv']);
    });

    after(async () => {
      assert.equal(await server?.stop(), 0);
    });

    it('the excess is refused unread: RSS stays bounded, the model AVAILABLE, and service resumes', async (t) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
      const send = (hold = HOLD_MS) =>
        new Promise<Answer>((resolve, reject) => {
          let tailSent = false;
          let answered = false;
          const req = http.request(
            server.url('/v1/models/conv:predict'),
            { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
            (res) => {
              answered = true;
              const unread = !tailSent;
              // A refusal may be answered before its body is read; @hono/node-server then drains
              // the rest for 500 ms and closes the connection if that runs out (on a starved
              // machine it did), so a refused connection never carries another request: it is
              // closed here once its answer is read (a 200 comes only after the whole body was
              // read). Closed, not just left out of the agent's pool: the agent hands a freed
              // connection straight to a request waiting for one without asking keepSocketAlive,
              // and one always waits (256 clients on 256 sockets, a closing one still counted).
              const refused = res.statusCode === 200 ? undefined : res.socket;
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (d) => (text += d));
              res.on('end', () => {
                resolve({ status: res.statusCode!, text, unread });
                // Before the agent's 'free' (next tick): it then finds the connection closed.
                refused?.destroy();
              });
            },
          );
          req.on('error', (e) => {
            if (!answered) reject(e);
          });
          const half = body.length >> 1;
          req.write(body.slice(0, half));
          // The tail goes after the I/O the hold let in has been read (setImmediate runs after the
          // poll phase): on a loaded machine the timer can fire late, after the server answered
          // unread and hono closed the connection it stopped draining (500 ms) — writing then was
          // an EPIPE for an answer already in the socket (a fresh-clone run failed so). That
          // narrows the race without closing it: an answer that comes while that poll phase still
          // runs is not seen, and a starved client's poll phase ran ~1 s here (5 CPU hogs, two
          // copies): in one such run 167 tails went out 0.5-1.1 s after the server's 503 on their
          // connection, past its 500 ms drain, and held only because the server's drain timer
          // ran as late.
          setTimeout(
            () =>
              setImmediate(() => {
                if (answered) return;
                tailSent = true;
                req.end(body.slice(half));
              }),
            hold,
          );
        });
      const state = async () =>
        (
          (await (await fetch(server.url('/v1/models/conv'), { headers: { connection: 'close' } })).json()) as {
            model_version_status: { state: string }[];
          }
        ).model_version_status[0].state;

      for (let i = 0; i < 3; i++) assert.equal((await send(0)).status, 200);
      const pid = server.proc.pid!;
      const baseline = rssBytes(pid);
      const sampler = rssSampler(pid);
      const answers: Answer[] = [];
      const states: string[] = [];
      let done = false;
      // The model's state, asked again and again while the load lasts.
      const probing = (async () => {
        while (!done) states.push(await state());
      })();
      // Awaited below; handled here too so that a failed load does not leave it unhandled.
      probing.catch(() => undefined);
      let peak: number;
      try {
        await Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            for (let i = 0; i < REQUESTS_PER_CLIENT; i++) answers.push(await send());
          }),
        );
      } finally {
        // Also on a failure: the sampler's interval would keep the test process alive for ever.
        done = true;
        peak = sampler.stop();
      }
      await probing;

      const byStatus: Record<number, number> = {};
      for (const a of answers) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
      const unread = answers.filter((a) => a.unread);
      t.diagnostic(
        `${answers.length} answers ${JSON.stringify(byStatus)}, ${unread.length} before their body was sent; RSS ${mb(baseline)} → peak ${mb(peak)} MB; ${states.length} status probes`,
      );
      assert.ok(byStatus[200] > 0, 'some requests were served');
      assert.ok(byStatus[503] > 0, 'the excess was refused');
      assert.deepEqual(Object.keys(byStatus).sort(), ['200', '503'], JSON.stringify(byStatus));
      const otherRefusals = new Set(
        answers
          .filter((x) => x.status === 503)
          .map((x) => JSON.parse(x.text).error as string)
          .filter((m) => !refusal.test(m)),
      );
      assert.deepEqual([...otherRefusals], [], "every 503 is the queue's own");
      assert.ok(unread.length > 0, 'the excess is refused before its body is read');
      assert.ok(
        unread.every((a) => a.status === 503),
        'only refusals come before the body',
      );
      assert.ok(peak - baseline < RSS_GROWTH_LIMIT, `RSS grew ${mb(peak - baseline)} MB (limit ${mb(RSS_GROWTH_LIMIT)} MB)`);
      assert.ok(states.length > 0 && states.every((s) => s === 'AVAILABLE'), `states seen: ${[...new Set(states)]}`);

      assert.equal(server.proc.exitCode, null, 'the server is up');
      for (let i = 0; i < 3; i++) assert.equal((await send(0)).status, 200);
      assert.equal(await state(), 'AVAILABLE');
      agent.destroy();
    });
  });
}

overloadCase(
  'batching on',
  (root) => {
    const cfg = path.join(root, 'batching.cfg');
    fs.writeFileSync(
      cfg,
      'max_batch_size { value: 2 }\nbatch_timeout_micros { value: 0 }\nmax_enqueued_batches { value: 2 }\nnum_batch_threads { value: 1 }\n',
    );
    return ['--enable_batching', `--batching_parameters_file=${cfg}`];
  },
  /^The batch scheduling queue to which this task was submitted is full; currently \d+ batches enqueued and max_enqueued_batches is 2$/,
);

overloadCase('batching off', () => ['--max_executor_queue=4'], /--max_executor_queue/);
