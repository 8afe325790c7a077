// The seeded model fuzzer: hostile and mutated versions (bench/model_fuzz_cases.ts) dropped,
// a few at a time, into the base path of a model `fuzz` (version policy: all) of a real
// tfgate, while a second model `serve` (half_plus_two) answers two clients without pause.
// Each version is then classified:
//   refused clearly   its load failed with a status that names the problem (not INTERNAL,
//                     not UNKNOWN, no JS error text);
//   refused unclearly its load failed with INTERNAL/UNKNOWN or JS text (a defect);
//   loaded, correct   it serves, and a request made up from its signature gets the answer
//                     the embedded CPU engine gives in this process (an independent oracle);
//   loaded, refusing  it serves, and that request gets a clear 4xx (its own graph refuses);
//   loaded, no oracle it serves, the oracle cannot run it;
//   silent wrong      it serves an answer the oracle contradicts (the worst defect);
//   crashed           the server process died while the version was loading or answering;
//   hung              no state within --case-seconds;
//   over the bound    the server's RSS passed --memory-cap-mb (the watchdog then kills it).
// and the serving model's failed requests are counted. A harmless mutation (node order,
// unused nodes) that does not load and answer as the original counts as a defect too.
// Target: 0 crashed, 0 hung, 0 over the bound, 0 refused unclearly, 0 silent wrong, 0 failed.
//
//   npm run bench:model-fuzz [-- --seed 1 --cases 240 --batch 4 --memory-cap-mb 2500 --only 37]
//
// --only N runs case N of the seed alone (a failing case reproduces). The server runs with
// --load_timeout_seconds=45 (so a load that never ends shows as refused, not hung) and is
// watched: past --memory-cap-mb it is killed and restarted.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { numberArg } from './load/args.js';
import { fuzzCases, type FuzzCase } from './model_fuzz_cases.js';
import { EmbeddedRuntime } from '../src/runtimes/embedded/embedded_runtime.js';
import { seededInputs } from '../src/runtimes/verify/seeded_inputs.js';
import type { SignatureSpec } from '../src/savedmodel/signature_spec.js';
import type { HostTensor } from '../src/tensor/host_tensor.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '..', '..');
const MODELS = path.resolve(REPO, '..', 'shared', 'fixtures', 'models');
const SEED = numberArg('seed', 1);
const CASES = numberArg('cases', 240);
const BATCH = numberArg('batch', 4);
const MEMORY_CAP_MB = numberArg('memory-cap-mb', 2500);
const CASE_SECONDS = numberArg('case-seconds', 90);
const ONLY = numberArg('only', -1);
const PORT = numberArg('port', 18641);
const LOAD_TIMEOUT_SECONDS = 45;

type Outcome =
  | 'refused clearly'
  | 'refused unclearly'
  | 'loaded, correct'
  | 'loaded, refusing'
  | 'loaded, no oracle'
  | 'silent wrong'
  | 'harmless change refused'
  | 'crashed'
  | 'hung'
  | 'over the bound';

interface Server {
  proc: ChildProcess;
  logs: () => string;
  maxRssMb: number;
  overBound: boolean;
  exited: boolean;
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

const url = (p: string) => `http://127.0.0.1:${PORT}${p}`;

async function getJson(p: string): Promise<{ status: number; json: any }> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await fetch(url(p), { signal: AbortSignal.timeout(30_000) });
  return { status: r.status, json: await r.json().catch(() => undefined) };
}

async function postJson(p: string, body: unknown): Promise<{ status: number; text: string }> {
  const r = await fetch(url(p), {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
    signal: AbortSignal.timeout(60_000),
  });
  return { status: r.status, text: await r.text() };
}

async function startServer(config: string): Promise<Server> {
  const args = [
    path.join(REPO, 'bin', 'tfgate'),
    `--model_config_file=${config}`,
    `--rest_api_port=${PORT}`,
    '--rest_api_host=127.0.0.1',
    '--port=0',
    '--file_system_poll_wait_seconds=1',
    '--num_executors=1',
    '--max_num_load_retries=0',
    `--load_timeout_seconds=${LOAD_TIMEOUT_SECONDS}`,
  ];
  const proc = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  proc.stderr!.on('data', (d) => {
    out += d;
    if (out.length > 4e6) out = out.slice(-2e6);
  });
  const server: Server = { proc, logs: () => out, maxRssMb: 0, overBound: false, exited: false };
  proc.once('exit', () => (server.exited = true));
  const watchdog = setInterval(() => {
    if (server.exited) return clearInterval(watchdog);
    const mb = rssMb(proc.pid!);
    server.maxRssMb = Math.max(server.maxRssMb, mb);
    if (mb > MEMORY_CAP_MB) {
      server.overBound = true;
      proc.kill('SIGKILL');
    }
  }, 50);
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (server.exited) throw new Error(`tfgate exited at start:\n${out.slice(-3000)}`);
    try {
      const r = await getJson('/v1/models/serve');
      if (r.status === 200 && r.json.model_version_status?.[0]?.state === 'AVAILABLE') return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`tfgate did not serve in time:\n${out.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Two clients asking `serve` without pause; what failed. */
function serveLoad(): { stop: () => Promise<{ sent: number; failed: string[] }> } {
  let running = true;
  let sent = 0;
  const failed: string[] = [];
  const client = async () => {
    while (running) {
      sent++;
      try {
        const r = await postJson('/v1/models/serve:predict', { instances: [1, 2] });
        if (r.status !== 200 || !/"predictions": \[\s*2\.5,\s*3\.0\s*\]/.test(r.text)) failed.push(`${r.status} ${r.text.slice(0, 200)}`);
      } catch (e) {
        failed.push(String((e as Error).message));
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  const clients = [client(), client()];
  return {
    stop: async () => {
      running = false;
      await Promise.all(clients);
      return { sent, failed };
    },
  };
}

interface VersionStatus {
  state: string;
  status: { error_code: string; error_message: string };
}

const JS_TEXT =
  /Cannot read propert|is not a function|ReferenceError|undefined \(reading|Maximum call stack|is not iterable|Invalid (typed )?array length|Unexpected token/;

function nest(values: ArrayLike<unknown>, shape: number[]): unknown {
  if (!shape.length) return values[0];
  const size = shape.slice(1).reduce((a, b) => a * b, 1);
  return Array.from({ length: shape[0] }, (_, i) => nest(Array.from(values).slice(i * size, (i + 1) * size), shape.slice(1)));
}

function flatten(v: unknown): number[] {
  return Array.isArray(v) ? v.flatMap(flatten) : [Number(v)];
}

/** The spec of the version's first served signature, from its metadata. */
async function servedSignature(version: number): Promise<SignatureSpec | undefined> {
  const r = await getJson(`/v1/models/fuzz/versions/${version}/metadata`);
  const defs = r.json?.metadata?.signature_def?.signature_def ?? {};
  const key = 'serving_default' in defs ? 'serving_default' : Object.keys(defs).find((k) => k !== '__saved_model_init_op');
  if (!key) return undefined;
  const side = (
    m: Record<string, { name: string; dtype: string; tensor_shape?: { dim?: Array<{ size: string }>; unknown_rank?: boolean } }>,
  ) =>
    Object.fromEntries(
      Object.entries(m ?? {}).map(([k, t]) => [
        k,
        {
          name: t.name,
          dtype: t.dtype,
          shape: t.tensor_shape?.unknown_rank ? null : (t.tensor_shape?.dim ?? []).map((d) => Number(d.size)),
        },
      ]),
    );
  return { key, methodName: defs[key].method_name, inputs: side(defs[key].inputs), outputs: side(defs[key].outputs), defaults: {} };
}

/** The oracle's answer: the embedded runtime on its plain-JS CPU backend, in this process. */
async function oracle(dir: string, spec: SignatureSpec, inputs: Record<string, HostTensor>): Promise<Record<string, number[]> | undefined> {
  try {
    const s = await new EmbeddedRuntime('cpu').load(dir, { tags: ['serve'] });
    try {
      const out = await s.run(spec.key, inputs);
      return Object.fromEntries(Object.entries(out).map(([k, t]) => [k, Array.from(t.values as ArrayLike<number>, Number)]));
    } finally {
      s.dispose();
    }
  } catch {
    return undefined;
  }
}

function agrees(a: number[], b: number[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => (Number.isNaN(x) && Number.isNaN(b[i])) || Math.abs(x - b[i]) <= 1e-4 * Math.max(1, Math.abs(b[i])))
  );
}

/** A loaded version: a made-up request, checked against the oracle. */
async function judgeLoaded(version: number, dir: string, c: FuzzCase): Promise<{ outcome: Outcome; detail: string }> {
  const spec = await servedSignature(version);
  if (!spec) return { outcome: 'loaded, no oracle', detail: 'no signature in its metadata' };
  const made = seededInputs(spec);
  if (!('inputs' in made)) return { outcome: 'loaded, no oracle', detail: made.skip };
  const body = {
    signature_name: spec.key,
    inputs: Object.fromEntries(Object.entries(made.inputs).map(([k, t]) => [k, nest(t.values as ArrayLike<unknown>, t.shape)])),
  };
  const r = await postJson(`/v1/models/fuzz/versions/${version}:predict`, body);
  if (r.status !== 200) {
    if (r.status === 500 || JS_TEXT.test(r.text) || /Internal error/.test(r.text))
      return { outcome: 'refused unclearly', detail: `request ${r.status} ${r.text.slice(0, 300)}` };
    return { outcome: c.mustServe ? 'harmless change refused' : 'loaded, refusing', detail: `request ${r.status} ${r.text.slice(0, 200)}` };
  }
  const expected = await oracle(dir, spec, made.inputs);
  if (!expected) return { outcome: 'loaded, no oracle', detail: 'the CPU engine does not run it' };
  const got = JSON.parse(r.text).outputs;
  const byKey: Record<string, unknown> =
    Object.keys(expected).length === 1 && !(typeof got === 'object' && got && !Array.isArray(got))
      ? { [Object.keys(expected)[0]]: got }
      : got;
  for (const [k, want] of Object.entries(expected)) {
    if (!agrees(flatten(byKey[k]), want))
      return {
        outcome: 'silent wrong',
        detail: `output ${k}: ${JSON.stringify(flatten(byKey[k]).slice(0, 6))} vs the oracle's ${JSON.stringify(want.slice(0, 6))}`,
      };
  }
  return { outcome: 'loaded, correct', detail: '' };
}

interface Result {
  index: number;
  name: string;
  outcome: Outcome;
  detail: string;
  ms: number;
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-model-fuzz-'));
  const halfPlusTwo = path.join(MODELS, 'saved_model_half_plus_two_cpu', '00000123');
  const conv = path.join(MODELS, 'keras3_mnist_conv', '1');
  const all = fuzzCases(SEED, CASES, { halfPlusTwo, conv });
  const chosen = ONLY >= 0 ? [[ONLY, all[ONLY]] as const] : all.map((c, i) => [i, c] as const);
  const serveBase = path.join(work, 'serve');
  const fuzzBase = path.join(work, 'fuzz');
  fs.cpSync(halfPlusTwo, path.join(serveBase, '1'), { recursive: true });
  fs.mkdirSync(fuzzBase);
  const config = path.join(work, 'models.config');
  fs.writeFileSync(
    config,
    `model_config_list {\n  config { name: "serve" base_path: "${serveBase}" model_platform: "tensorflow" }\n  config { name: "fuzz" base_path: "${fuzzBase}" model_platform: "tensorflow" model_version_policy { all {} } }\n}\n`,
  );

  const results: Result[] = [];
  let server = await startServer(config);
  process.once('exit', () => server.proc.kill('SIGKILL'));
  let restarts = 0;
  let load = serveLoad();
  let servedTotal = 0;
  const serveFailures: string[] = [];
  const t0 = performance.now();
  let version = 0;
  const queue = [...chosen];
  while (queue.length) {
    const batch = queue.splice(0, server.exited ? 1 : BATCH);
    const dropped: Array<{ index: number; c: FuzzCase; version: number; dir: string; started: number }> = [];
    for (const [index, c] of batch) {
      version++;
      const staging = path.join(work, `staging-${version}`);
      try {
        await c.make(staging);
      } catch (e) {
        fs.rmSync(staging, { recursive: true, force: true });
        throw new Error(`case ${index} (${c.name}) could not be written: ${(e as Error).message}`);
      }
      const dir = path.join(fuzzBase, String(version));
      fs.renameSync(staging, dir);
      dropped.push({ index, c, version, dir, started: performance.now() });
    }
    for (const d of dropped) {
      let outcome: Outcome | undefined;
      let detail = '';
      const deadline = d.started + CASE_SECONDS * 1000;
      while (!outcome) {
        if (server.overBound) outcome = 'over the bound';
        else if (server.exited) outcome = 'crashed';
        else if (performance.now() > deadline) outcome = 'hung';
        if (outcome) break;
        let st: VersionStatus | undefined;
        try {
          const r = await getJson(`/v1/models/fuzz/versions/${d.version}`);
          st = r.status === 200 ? r.json.model_version_status?.[0] : undefined;
        } catch {
          st = undefined;
        }
        if (st?.state === 'AVAILABLE') {
          try {
            ({ outcome, detail } = await judgeLoaded(d.version, d.dir, d.c));
          } catch (e) {
            if (server.exited || server.overBound) continue;
            outcome = 'hung';
            detail = `request: ${(e as Error).message}`;
          }
        } else if (st?.status?.error_message) {
          const { error_code: code, error_message: message } = st.status;
          const unclear = code === 'INTERNAL' || code === 'UNKNOWN' || JS_TEXT.test(message);
          outcome = unclear ? 'refused unclearly' : d.c.mustServe ? 'harmless change refused' : 'refused clearly';
          detail = `${code}: ${message.slice(0, 300)}`;
        } else await new Promise((r) => setTimeout(r, 200));
      }
      results.push({
        index: d.index,
        name: d.c.name,
        outcome,
        detail: `${detail}${(d.c as { detail?: string }).detail ? ` [${(d.c as { detail?: string }).detail}]` : ''}`,
        ms: performance.now() - d.started,
      });
    }
    for (const d of dropped) fs.rmSync(d.dir, { recursive: true, force: true });
    if (server.exited || server.overBound) {
      const stats = await load.stop();
      servedTotal += stats.sent;
      serveFailures.push(...stats.failed.map((f) => `(server down) ${f}`));
      // A batch that took the server down is tried again one case at a time, to name the culprit.
      if (dropped.length > 1) {
        for (const d of dropped)
          results.splice(
            results.findIndex((r) => r.index === d.index),
            1,
          );
        queue.unshift(...dropped.map((d) => [d.index, d.c] as const));
      }
      if (!server.exited) server.proc.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 500));
      server = await startServer(config);
      restarts++;
      load = serveLoad();
    }
  }
  const stats = await load.stop();
  servedTotal += stats.sent;
  serveFailures.push(...stats.failed);
  const logs = server.logs();
  server.proc.kill('SIGTERM');
  const notJson = logs.split('\n').filter((l) => l.trim() && !l.startsWith('{')).length;

  const counts = new Map<Outcome, number>();
  for (const r of results) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `model fuzz: seed ${SEED}, ${results.length} versions tried in ${seconds.toFixed(0)} s (batches of ${BATCH}, memory cap ${MEMORY_CAP_MB} MB, server peak RSS ${server.maxRssMb.toFixed(0)} MB, ${restarts} restarts)`,
  );
  const order: Outcome[] = [
    'refused clearly',
    'loaded, correct',
    'loaded, refusing',
    'loaded, no oracle',
    'refused unclearly',
    'harmless change refused',
    'silent wrong',
    'crashed',
    'hung',
    'over the bound',
  ];
  for (const o of order) console.log(`  ${o.padEnd(24)} ${counts.get(o) ?? 0}`);
  console.log(`  serving model: ${servedTotal} requests, ${serveFailures.length} failed`);
  console.log(`  server log lines that are not JSON: ${notJson}`);
  const bad = results.filter((r) =>
    ['refused unclearly', 'harmless change refused', 'silent wrong', 'crashed', 'hung', 'over the bound'].includes(r.outcome),
  );
  for (const r of bad) console.log(`  ! case ${r.index} (--seed ${SEED} --only ${r.index}) ${r.name}: ${r.outcome} — ${r.detail}`);
  for (const f of serveFailures.slice(0, 5)) console.log(`  ! serving model: ${f}`);
  if (process.argv.includes('--server-log')) process.stderr.write(logs);
  if (process.argv.includes('--verbose'))
    for (const r of results.sort((a, b) => a.index - b.index))
      console.log(
        `  ${String(r.index).padStart(4)} ${(r.ms / 1000).toFixed(1).padStart(5)} s  ${r.outcome.padEnd(18)} ${r.name} — ${r.detail}`,
      );
  fs.rmSync(work, { recursive: true, force: true });
}

await main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
