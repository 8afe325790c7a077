// --verify_on_load on the real server: each signature is checked on a reference engine before
// the version serves, and the log says which agreed with what, which could not be checked and
// why; a signature that cannot run is refused naming the op while the others serve; =false
// skips the check; auto skips versions over --verify_on_load_max_mb.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { writeStringSignaturesModel } from '../helpers/string_signatures.js';
import { fixtureModel, REPO_ROOT } from '../helpers/paths.js';

type LogLine = Record<string, unknown> & { msg: string };
const lines = (logs: string): LogLine[] =>
  logs
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

async function serve(args: string[], whileUp?: (server: RunningServer) => Promise<void>): Promise<LogLine[]> {
  const server = await startServer(args, { readyPath: '/v1/models/m' });
  try {
    await waitAvailable(server, ['m'], 120_000);
    await whileUp?.(server);
    return lines(server.logs());
  } finally {
    await server.stop();
  }
}

const predict = (server: RunningServer, signature: string, inputs: Record<string, unknown>) =>
  fetch(server.url('/v1/models/m:predict'), { method: 'POST', body: JSON.stringify({ signature_name: signature, inputs }) }).then(
    async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }),
  );

describe('--verify_on_load (real process)', () => {
  it('checks every signature before the version serves: ONNX Runtime against WASM, WASM against the CPU backend', async () => {
    const log = await serve([
      `--model_base_path=${fixtureModel('saved_model_half_plus_two_tf2_cpu', '00000123').replace(/\/00000123$/, '')}`,
      '--model_name=m',
      '--verify_on_load=true',
    ]);
    const verify = log.filter((l) => l.event === 'verify_on_load');
    assert.ok(
      verify.some((l) => l.signature === 'serving_default' && /agrees with wasm$/.test(l.msg)),
      JSON.stringify(verify),
    );
    // The tf.Example signatures are checked on made-up Examples holding the features their ParseExample reads.
    assert.ok(
      verify.some((l) => l.signature === 'regress_x_to_y' && /agrees with wasm$/.test(l.msg)),
      JSON.stringify(verify),
    );
    const available = log.findIndex((l) => l.event === 'available');
    assert.ok(available > log.findIndex((l) => l.event === 'verify_on_load'), 'checked before AVAILABLE');
  });

  it('a signature its engine cannot run on any request (ReverseV2 of strings on TF.js) is refused at load naming the op; the others serve', async () => {
    const base = await writeStringSignaturesModel();
    const log = await serve([`--model_base_path=${base}`, '--model_name=m', '--verify_on_load=true'], async (server) => {
      const labels = await predict(server, 'labels', { words: ['a', 'b'], flags: [true, false] });
      assert.deepEqual(labels, { status: 200, body: { outputs: ['a', 'none'] } });
      const reversed = await predict(server, 'reversed', { words: ['a', 'b'] });
      assert.notEqual(reversed.status, 200);
      assert.match(String(reversed.body.error), /ReverseV2 \(node reverse_words\)/);
    });
    const refused = log.find((l) => l.event === 'verify_on_load' && l.signature === 'reversed');
    assert.match(
      refused?.msg ?? '',
      /refused: wasm cannot run it on made-up inputs: ReverseV2 \(node reverse_words\): Argument 'x' passed to 'reverse' must be numeric tensor, but got string tensor$/,
    );
  });

  it('=false skips the check; auto skips a version over --verify_on_load_max_mb and says so', async () => {
    const base = path.join(REPO_ROOT, 'model_repository', 'half_plus_two');
    const off = await serve([`--model_base_path=${base}`, '--model_name=m', '--verify_on_load=false']);
    assert.equal(off.filter((l) => l.event === 'verify_on_load').length, 0);
    const big = await serve([`--model_base_path=${base}`, '--model_name=m', '--verify_on_load_max_mb=0']);
    assert.ok(
      big.some(
        (l) => l.event === 'verify_on_load' && /not verified on a second engine: .* MB on disk, over --verify_on_load_max_mb=0/.test(l.msg),
      ),
    );
  });
});
