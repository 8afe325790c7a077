// The baseline for the REST bench: a bare Hono JSON echo route on @hono/node-server.
// `echo_server.js <port> <n>`: instead of echoing, it answers a :predict body ({"instances":
// rows of numbers}) with the first n values of each row as {"predictions": …} — what a model
// server with n outputs reads and writes, with no model, thread, batching or checks.
// `echo_server.js <port> <n> unread`: the body's bytes taken but not parsed, and an answer of
// one row of n zeros: what the framework's HTTP path costs before any JSON.
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

const answerWidth = Number(process.argv[3] ?? 0);
const unread = process.argv[4] === 'unread';
const fixedAnswer = JSON.stringify({ predictions: [new Array(answerWidth).fill(0)] });
const app = new Hono();
app.post('/echo', async (c) => {
  if (unread) {
    await c.req.arrayBuffer();
    return c.body(fixedAnswer, 200, { 'content-type': 'application/json' });
  }
  const body: unknown = await c.req.json();
  if (!answerWidth) return c.json(body as object);
  const rows = (body as { instances: number[][] }).instances;
  return c.json({ predictions: rows.map((row) => row.slice(0, answerWidth)) });
});
const port = Number(process.argv[2] ?? 0);
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => process.stdout.write(`listening ${info.port}\n`));
