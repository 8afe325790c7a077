// Does an executor thread that polls for work, instead of sleeping in its event loop, hand a
// request over sooner? The hand-off tfgate makes for every run, reduced to its parts: the main
// thread posts a message on a MessagePort, the thread answers at once. Measured three ways,
// rounds interleaved, after each idle gap:
//   sleeps     — the thread waits in its event loop (what tfgate's executors do);
//   polls      — after answering it polls for `pollMs` (a shared counter, then the port);
//   wake+polls — as polls, and the main thread first posts a wake-up, then works 0.3 ms (a
//                request's parse) before the run: the thread wakes while the main thread works;
//   parks      — after answering the thread blocks in Atomics.wait on a shared counter (no
//                CPU used) and the main thread wakes it with Atomics.notify after each post:
//                a futex wake-up instead of the event loop's.
// Printed: median round trip and the main thread's 0.3 ms of work as it measured (a polling
// thread must not slow the thread it waits for), each ÷ sleeps.
//   npm run bench:hop [-- --rounds 5]
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { numberArg } from './load/args.js';
import { percentile } from './load/latency_recorder.js';

const POLL_MS = 2;
const PARSE_MS = 0.3;
const GAPS_MS = [0.5, 2, 200];

// The thread's side, as plain JS (eval'd): answers each message; polls after answering or on a wake.
const THREAD = `
const { parentPort, receiveMessageOnPort } = require('node:worker_threads');
parentPort.once('message', ({ port, posted }) => {
  let seen = 0, pollMs = 0, parked = false;
  const park = () => {
    for (;;) {
      if (Atomics.load(posted, 0) === seen) {
        Atomics.wait(posted, 0, seen, 1000);
        continue;
      }
      seen = Atomics.load(posted, 0);
      const got = receiveMessageOnPort(port);
      if (got) return got.message;
    }
  };
  const poll = () => {
    const until = performance.now() + pollMs;
    do {
      if (Atomics.load(posted, 0) !== seen) {
        seen = Atomics.load(posted, 0);
        const got = receiveMessageOnPort(port);
        if (got) return got.message;
      }
    } while (performance.now() < until);
  };
  port.on('message', (m) => {
    for (;;) {
      if (m.mode !== undefined) pollMs = m.mode;
      if (m.park !== undefined) parked = m.park;
      if (!m.wake) port.postMessage(0);
      m = parked ? park() : pollMs ? poll() : undefined;
      if (!m) return;
    }
  });
});`;

type Mode = 'sleeps' | 'polls' | 'wake+polls' | 'parks';
const MODES: Mode[] = ['sleeps', 'polls', 'wake+polls', 'parks'];

class Line {
  private readonly posted = new Int32Array(new SharedArrayBuffer(4));
  private readonly port: MessagePort;
  readonly worker: Worker;
  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(THREAD, { eval: true });
    this.worker.postMessage({ port: port2, posted: this.posted }, [port2]);
  }
  post(message: object): void {
    this.port.postMessage(message);
    Atomics.add(this.posted, 0, 1);
    Atomics.notify(this.posted, 0);
  }
  answer(): Promise<unknown> {
    return new Promise((resolve) => this.port.once('message', resolve));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

/** One request's hand-off: [round trip from the run's post, the parse's own duration]. */
async function once(line: Line, mode: Mode): Promise<[number, number]> {
  if (mode === 'wake+polls') line.post({ wake: true });
  const p0 = performance.now();
  busy(PARSE_MS);
  const parse = performance.now() - p0;
  const t0 = performance.now();
  const answered = line.answer();
  line.post({});
  await answered;
  return [performance.now() - t0, parse];
}

async function main() {
  const rounds = numberArg('rounds', 3);
  const line = new Line();
  await sleep(100);
  const results = new Map<string, { trip: number[]; parse: number[] }>();
  for (let round = 0; round < rounds; round++) {
    for (const gap of GAPS_MS) {
      for (const mode of MODES) {
        const answered = line.answer();
        line.post({ mode: mode === 'sleeps' || mode === 'parks' ? 0 : POLL_MS, park: mode === 'parks' });
        await answered;
        const key = `${gap} ${mode}`;
        const r = results.get(key) ?? { trip: [], parse: [] };
        for (let i = 0; i < (gap >= 100 ? 15 : 200); i++) {
          await sleep(gap);
          const [trip, parse] = await once(line, mode);
          r.trip.push(trip);
          r.parse.push(parse);
        }
        results.set(key, r);
      }
    }
  }
  console.log(`thread hand-off, ${rounds} rounds; median ms, and ÷ the sleeping thread's at the same gap`);
  console.log('idle gap | thread | round trip | ÷ sleeps | 0.3 ms parse took | ÷ sleeps');
  for (const gap of GAPS_MS) {
    const base = results.get(`${gap} sleeps`)!;
    for (const mode of MODES) {
      const r = results.get(`${gap} ${mode}`)!;
      const trip = median(r.trip);
      const parse = median(r.parse);
      console.log(
        `${gap} ms | ${mode} | ${trip.toFixed(3)} | ${(trip / median(base.trip)).toFixed(2)} | ${parse.toFixed(3)} | ${(parse / median(base.parse)).toFixed(2)}`,
      );
    }
  }
  await line.worker.terminate();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
