// The baseline for the REST bench: a bare Hono JSON echo route on @hono/node-server.
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

const app = new Hono();
app.post('/echo', async (c) => c.json(await c.req.json()));
const port = Number(process.argv[2] ?? 0);
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => process.stdout.write(`listening ${info.port}\n`));
