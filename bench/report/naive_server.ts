// The anti-pattern, for contrast only: the model runs inline on the HTTP server's event loop,
// one request at a time (a single-threaded Flask app, or a FastAPI `async def` handler that
// calls the model directly). While it computes, no other request is read or answered.
// Same SavedModel, same engine (the runtime tfgate resolved) and same REST shapes as tfgate,
// so only the serving differs.
//   node dist/bench/report/naive_server.js <version dir> [port] [runtime: onnx+embedded, embedded, wasm …]
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { createRuntime } from '../../src/runtimes/index.js';
import type { ResolvedRuntime } from '../../src/runtimes/runtime_selection.js';

const [versionDir, portArg, runtimeArg] = process.argv.slice(2);
if (!versionDir) {
  process.stderr.write('usage: naive_server <version dir> [port] [runtime]\n');
  process.exit(2);
}
const servable = await (await createRuntime((runtimeArg ?? 'embedded') as ResolvedRuntime)).load(versionDir, { tags: ['serve'] });
const inputDim = servable.signatures.serving_default.inputs.x.shape?.[1] ?? 0;

// One inference at a time, in arrival order, on this thread.
let previous: Promise<unknown> = Promise.resolve();
function runInline(rows: number[][]): Promise<number[][]> {
  const next = previous.then(async () => {
    const values = Float32Array.from(rows.flat());
    const { y } = await servable.run('serving_default', { x: { dtype: 'float32', shape: [rows.length, inputDim], values } });
    const width = y.shape[1];
    return rows.map((_, i) => Array.from(y.values.slice(i * width, (i + 1) * width) as Float32Array));
  });
  previous = next.catch(() => undefined);
  return next;
}

const app = new Hono();
app.get('/v1/models/:name', (c) =>
  c.json({ model_version_status: [{ version: '1', state: 'AVAILABLE', status: { error_code: 'OK', error_message: '' } }] }),
);
app.post('/v1/models/:name', async (c) => {
  const body = (await c.req.json()) as { instances?: number[][] };
  if (!Array.isArray(body.instances) || !body.instances.every((r) => Array.isArray(r) && r.length === inputDim))
    return c.json({ error: `instances must be rows of ${inputDim} numbers` }, 400);
  return c.json({ predictions: await runInline(body.instances) });
});
serve({ fetch: app.fetch, port: Number(portArg ?? 0), hostname: '127.0.0.1' }, (info) => process.stdout.write(`listening ${info.port}\n`));
