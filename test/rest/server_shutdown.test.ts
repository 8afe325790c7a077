// SIGTERM on the real server process with requests in flight: every request already received
// is answered, new connections are refused, and the process exits 0.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { postJson, startServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';
import { writeConvSavedModel } from '../../src/savedmodel/model_zoo.js';

const HW = 64;

describe('graceful shutdown (real process)', () => {
  it('SIGTERM while requests queue on a busy executor: all answered, then exit 0', async () => {
    const root = tempDir();
    await writeConvSavedModel(path.join(root, 'conv', '1'), { height: HW, width: HW, channels: 1, filters: [32, 64], kernelSize: 3, classes: 4, seed: 5 });
    // The WASM runtime keeps each predict slow enough (tens of ms) that all eight are received
    // before the first is answered.
    const server = await startServer([`--model_base_path=${path.join(root, 'conv')}`, '--model_name=conv', '--num_executors=1', '--access_log', '--runtime=wasm'], { readyPath: '/v1/models/conv' });
    for (let i = 0; i < 100 && (await (await fetch(server.url('/v1/models/conv'))).json()).model_version_status?.[0]?.state !== 'AVAILABLE'; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const body = JSON.stringify({ instances: [Array.from({ length: HW }, () => Array.from({ length: HW }, () => [0.5]))] });
    const requests = Array.from({ length: 8 }, () => postJson(server.url('/v1/models/conv:predict'), body));
    await Promise.race(requests); // the first answer: the others were sent with it and wait on the one executor
    const exited = server.stop(); // SIGTERM
    const answers = await Promise.all(requests);
    assert.deepEqual(answers.map((a) => a.status), new Array(8).fill(200));
    assert.equal(await exited, 0);
    await assert.rejects(fetch(server.url('/v1/models/conv')), 'nothing listens any more');
    const lines = server.logs().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(lines.some((l) => l.msg === 'SIGTERM received: draining (at most 30 s) and unloading'), 'JSON log lines (pino)');
    const logged = lines.filter((l) => l.msg === 'request' && l.path === '/v1/models/conv:predict');
    assert.equal(logged.length, 8, 'one access-log line per predict');
    assert.ok(logged.every((l) => l.status === 200 && typeof l.ms === 'number' && l.method === 'POST'));
  });
});
