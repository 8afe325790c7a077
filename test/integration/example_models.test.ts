// model_repository/ as a newcomer meets it: `npm start` (no model flag: every folder is a
// model) loads each one, and each curl of model_repository/README.md answers 200 with what
// the README says it answers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';
import { startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';

const REPO = path.join(REPO_ROOT, 'model_repository');
const MODELS = fs
  .readdirSync(REPO, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

/** The README's `curl … -d BODY localhost:8501/v1/models/NAME:predict` commands (continuation lines joined). */
function readmeCurls(): { model: string; body: string }[] {
  const text = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8').replace(/\\\n\s*/g, ' ');
  return [...text.matchAll(/curl -s -d (@\S+|'[^']*')\s+localhost:8501\/v1\/models\/(\w+):predict/g)].map((m) => ({
    model: m[2],
    body: m[1].startsWith('@') ? fs.readFileSync(path.join(REPO_ROOT, m[1].slice(1)), 'utf8') : m[1].slice(1, -1),
  }));
}

/** What each example answers, as its README states it. */
const EXPECTED: Record<string, (predictions: any) => void> = {
  half_plus_two: (p) => assert.deepEqual(p, [2.5, 3, 4.5]),
  // ImageNet 285 Egyptian cat, 281 tabby, 282 tiger cat.
  image_classifier: (p) =>
    assert.deepEqual([...p[0].keys()].sort((a: number, b: number) => p[0][b] - p[0][a]).slice(0, 3), [285, 281, 282]),
  // The same classifier on the JPEG of the same cat, decoded in the graph.
  jpeg_classifier: (p) => assert.deepEqual([...p[0].keys()].sort((a: number, b: number) => p[0][b] - p[0][a]).slice(0, 3), [285, 281, 282]),
  // The fixtures' PROVENANCE: 0.644775 (computed, not TF).
  customer_churn: (p) => assert.ok(Math.abs(p[0][0] - 0.644775) < 1e-4, String(p[0][0])),
};

describe('model_repository: every example model, as `npm start` serves it', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer([], { cwd: REPO_ROOT });
    await waitAvailable(server, MODELS, 120_000);
  });
  after(async () => {
    await server?.stop();
  });

  it('every folder is a model that loads (a version AVAILABLE), and models.config lists them all', async () => {
    assert.ok(MODELS.length >= 3, MODELS.join(', '));
    const r = await fetch(server.url('/monitoring/tfgate/ready'));
    assert.equal(r.status, 200, await r.text());
    const listed = [...fs.readFileSync(path.join(REPO, 'models.config'), 'utf8').matchAll(/name: "(\w+)"/g)].map((m) => m[1]).sort();
    assert.deepEqual(listed, MODELS);
  });

  it('the README has a curl for every model, and each answers 200 with what the README says', async () => {
    const curls = readmeCurls();
    assert.deepEqual([...new Set(curls.map((c) => c.model))].sort(), MODELS);
    for (const { model, body } of curls) {
      const r = await fetch(server.url(`/v1/models/${model}:predict`), { method: 'POST', body });
      const text = await r.text();
      assert.equal(r.status, 200, `${model}: ${text.slice(0, 300)}`);
      EXPECTED[model](JSON.parse(text).predictions);
    }
  });
});
