// The floor for any server that keeps work off its event loop: the bare Hono JSON echo
// (echo_server.ts), except that each parsed body goes to a worker thread and back before it is
// answered — one message each way, as a hand-rolled "inference in a thread" server makes, with
// no model, batching, metrics or checks. tfgate's lone-request latency minus this server's is
// what tfgate adds beyond the thread hop itself.
import { Worker } from 'node:worker_threads';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

// The thread answers every message with what it was sent.
const worker = new Worker(
  "const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => parentPort.postMessage(m));",
  { eval: true },
);
const waiting: Array<(value: unknown) => void> = [];
// One thread, messages answered in order: the oldest waiting request gets each answer.
worker.on('message', (m: unknown) => waiting.shift()!(m));

const app = new Hono();
app.post('/echo', async (c) => {
  const body: unknown = await c.req.json();
  const answer = await new Promise((resolve) => {
    waiting.push(resolve);
    worker.postMessage(body);
  });
  return c.json(answer as object);
});
const port = Number(process.argv[2] ?? 0);
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => process.stdout.write(`listening ${info.port}\n`));
