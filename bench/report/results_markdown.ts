// Writes one run's report: bench/results/<name>.json (every figure), its SVG charts, and the
// Markdown (bench/RESULTS.md for a full run, bench/results/<name>.md for a quick one).
import fs from 'node:fs';
import path from 'node:path';
import { barChartSvg, lineChartSvg } from './charts.js';
import type { BenchResults } from './results.js';
import type { SeedCell } from './seed_experiment.js';
import { latencyMarkdown } from '../latency/latency_markdown.js';
import { cpuPerRequestLine } from './overhead_experiment.js';

/** The seed article's figures (300 ms model, 1–3 s think time, Locust users), in ms. */
const SEED = {
  naive: { 1: 332, 5: 431, 20: 4100 } as Record<number, number>,
  gunicorn5At20: 4100 / 2,
  queue500At1: 332 + 500,
  queue500At20: 4100 / 6,
};

/**
 * The cells that should read the same: tfgate set-ups that, at the lightest load, never waited
 * in a batch queue (batch ≤ 1.05 rows, queue wait ≤ 0.1 ms by the server's own metrics), so
 * they served those requests alike. How far apart they read is what chance alone does to a
 * cell on this machine in this run, the yardstick for any ratio between set-ups.
 */
export function chanceSpread(
  cells: readonly SeedCell[],
  labels: ReadonlyMap<string, string>,
): { users: number; labels: string[]; minMs: number; maxMs: number } | undefined {
  const users = Math.min(...cells.map((c) => c.users));
  const alike = cells.filter((c) => c.users === users && c.server && c.server.meanBatchSize <= 1.05 && c.server.queueingMs <= 0.1);
  if (alike.length < 2) return undefined;
  const means = alike.map((c) => c.latency.meanMs);
  return { users, labels: alike.map((c) => labels.get(c.setup) ?? c.setup), minMs: Math.min(...means), maxMs: Math.max(...means) };
}

/** “a”, “b” and “c”: labels that hold commas themselves. */
const listed = (labels: string[]) =>
  labels
    .map((l) => `“${l}”`)
    .join(', ')
    .replace(/, (“[^“]*”)$/, ' and $1');
const ms = (v: number) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(2)) : '—');
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

/** `main`: a full run's report is bench/RESULTS.md; quick runs and second runtimes go to bench/results/<name>.md. */
export async function writeReport(r: BenchResults, benchDir: string, main = true): Promise<string[]> {
  const resultsDir = path.join(benchDir, 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const mdPath = r.quick || !main ? path.join(resultsDir, `${r.name}.md`) : path.join(benchDir, 'RESULTS.md');
  const written: string[] = [];
  const write = (file: string, text: string) => {
    fs.writeFileSync(file, text);
    written.push(file);
  };
  write(path.join(resultsDir, `${r.name}.json`), JSON.stringify(r, null, 2) + '\n');

  const label = new Map(r.seed.setups.map((s) => [s.key, s.label]));
  const cell = (setup: string, users: number): SeedCell | undefined => r.seed.cells.find((c) => c.setup === setup && c.users === users);
  const chart = async (suffix: string, svg: Promise<string>) => {
    const file = path.join(resultsDir, `${r.name}-${suffix}.svg`);
    write(file, await svg);
    return path.relative(path.dirname(mdPath), file).split(path.sep).join('/');
  };

  const latencyChart = await chart(
    'latency-vs-users',
    lineChartSvg({
      title: 'Mean latency vs closed-loop users (time-scaled seed experiment)',
      xTitle: 'users',
      yTitle: 'mean latency (ms, log scale)',
      logX: true,
      logY: true,
      points: r.seed.cells.map((c) => ({ series: label.get(c.setup)!, x: c.users, y: c.latency.meanMs })),
    }),
  );
  const throughputChart = await chart(
    'throughput-vs-batch',
    lineChartSvg({
      title: 'Bench model offline throughput vs batch size',
      xTitle: 'batch size',
      yTitle: 'items per second',
      logX: true,
      points: r.model.curve.map((p) => ({ series: 'items/s (in-process, one thread)', x: p.batch, y: p.itemsPerSec })),
    }),
  );
  const percentileUsers = r.seed.users.includes(20) ? 20 : r.seed.users[r.seed.users.length - 1];
  const percentileChart = await chart(
    'percentiles',
    barChartSvg({
      title: `Latency percentiles at ${percentileUsers} users`,
      yTitle: 'ms (symlog scale)',
      logY: true,
      bars: r.seed.setups.flatMap((s) => {
        const c = cell(s.key, percentileUsers);
        const group = s.kind === 'fixed' ? `fixed ${(s.timeoutMicros! / 1000).toFixed(1)} ms` : s.key;
        return c ? (['p50', 'p90', 'p99'] as const).map((p) => ({ group, series: p, value: c.latency[`${p}Ms`] })) : [];
      }),
    }),
  );

  const out: string[] = [];
  const m = r.machine;
  out.push('# tfgate bench results', '');
  out.push(
    `Written by \`${r.command}\` on ${r.date.slice(0, 10)} in ${r.durationSeconds} s${r.quick ? ' (quick smoke run: short cells, one round, fewer set-ups)' : ''}. Figures: [\`results/${r.name}.json\`](${path
      .relative(path.dirname(mdPath), path.join(resultsDir, `${r.name}.json`))
      .split(path.sep)
      .join('/')}).`,
    '',
  );
  out.push(
    `Machine: ${m.cores} cores (${m.cpuModel}), ${m.totalMemoryGiB} GiB, Node ${m.node}, ${m.platform}. Client and servers share these cores; every set-up ran in the same run, rounds interleaved, so compare within this report, not across machines.`,
    '',
  );

  out.push('## Targets', '', row(['target', 'measured', 'goal', '']), row(['---', '---', '---', '---']));
  for (const t of r.targets) out.push(row([t.name, t.measured, t.goal, t.met ? 'met' : '**missed**']));
  out.push('');

  out.push('## The bench model', '');
  const engine = r.runtime
    ? `tfgate --runtime=${r.runtime.choice} (${r.runtime.resolved}; backend ${r.model.backend}, one thread; every set-up, the naive server included, runs on it)`
    : `the embedded runtime (backend ${r.model.backend}, one thread)`;
  out.push(
    `${r.model.description}, ${(r.model.flopsPerItem / 1e6).toFixed(2)} MFLOP per item, on ${engine}, measured in-process. Narrow and deep, so per-op dispatch dominates at small batches as kernel launches do on a GPU: batching pays.`,
    '',
  );
  out.push(
    row(['batch', 'T(batch) ms', 'ms per item', 'per item ÷ batch 1', 'items/s', 'GFLOP/s']),
    row(['---:', '---:', '---:', '---:', '---:', '---:']),
  );
  for (const p of r.model.curve)
    out.push(
      row([
        p.batch,
        p.ms.toFixed(3),
        p.msPerItem.toFixed(3),
        (p.msPerItem / r.model.batch1Ms).toFixed(3),
        p.itemsPerSec.toFixed(0),
        p.gflops.toFixed(2),
      ]),
    );
  if (r.model.batch1AfterThinkMs !== undefined) {
    out.push(
      '',
      `Batch 1 with the 1-user think time between runs (in-process, no server): ${r.model.batch1AfterThinkMs.toFixed(2)} ms, against ${r.model.batch1Ms.toFixed(2)} ms back to back — what a lone request pays for cold caches and cores on this machine before any serving cost.`,
    );
  }
  out.push('', `![throughput vs batch size](${throughputChart})`, '');

  const s = r.seed;
  const seedTimeout = s.setups
    .filter((x) => x.kind === 'fixed')
    .reduce((a, b) =>
      Math.abs(b.timeoutMicros! - (500 / 300) * r.model.batch1Ms * 1000) <
      Math.abs(a.timeoutMicros! - (500 / 300) * r.model.batch1Ms * 1000)
        ? b
        : a,
    );
  out.push('## The seed experiment, time-scaled', '');
  out.push(
    `The seed ran a 300 ms model with Locust users thinking \`between(1, 3)\` s. Here the model's batch-1 latency is ${r.model.batch1Ms.toFixed(2)} ms, so every time is scaled by ${s.scale.toPrecision(3)}: users think ${s.thinkMs[0].toFixed(1)}–${s.thinkMs[1].toFixed(1)} ms. Each cell: ${s.cellSeconds} s × ${s.rounds} round(s), set-ups interleaved; latency from send to the end of the answer.`,
    '',
  );
  out.push('### Beside the seed’s own numbers', '');
  out.push(
    `tfgate's figures multiplied back by ${(1 / s.scale).toFixed(1)} (to a 300 ms model). Seed figures in italics are what the article states in words ("roughly halved", "divided by 6", "added 500 ms").`,
    '',
  );
  const scaled = (setup: string, users: number) => ms((cell(setup, users)?.latency.meanMs ?? NaN) / s.scale);
  out.push(
    row([
      'users',
      'seed: one process',
      'tfgate bench: naive',
      'seed: 5 gunicorn workers',
      `tfgate bench: ${s.setups.find((x) => x.kind === 'processes')?.label}`,
      'seed: queue, 500 ms timeout',
      `tfgate bench: ${seedTimeout.label}`,
      'tfgate bench: adaptive',
    ]),
  );
  out.push(row(['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']));
  for (const u of [1, 5, 20].filter((u) => s.users.includes(u))) {
    out.push(
      row([
        u,
        SEED.naive[u],
        scaled('naive', u),
        u === 20 ? `*≈${SEED.gunicorn5At20}*` : '—',
        scaled('processes', u),
        u === 1 ? `*≈${SEED.queue500At1}*` : u === 20 ? `*≈${SEED.queue500At20.toFixed(0)}*` : '—',
        scaled(seedTimeout.key, u),
        scaled('adaptive', u),
      ]),
    );
  }
  out.push('');
  out.push(
    '### Every set-up',
    '',
    "Mean / p50 / p99 latency in ms (requests/s; errors). Saturated: no think time, the client in the table heading. Peak RSS: the set-up's whole process tree over the run.",
    '',
  );
  out.push(
    row([
      'set-up',
      ...s.users.map((u) => `${u} user${u === 1 ? '' : 's'}`),
      `saturated req/s (${s.saturation[0]?.client ?? ''})`,
      'peak RSS MB',
    ]),
  );
  out.push(row(['---', ...s.users.map(() => '---:'), '---:', '---:']));
  for (const x of s.setups) {
    const sat = s.saturation.find((y) => y.setup === x.key);
    out.push(
      row([
        x.label,
        ...s.users.map((u) => {
          const c = cell(x.key, u);
          return c
            ? `${ms(c.latency.meanMs)} / ${ms(c.latency.p50Ms)} / ${ms(c.latency.p99Ms)} (${c.rps.toFixed(0)}; ${c.latency.errors})`
            : '—';
        }),
        sat ? `${sat.rps.toFixed(0)} (mean ${ms(sat.meanMs)}, p99 ${ms(sat.p99Ms)}; ${sat.errors} errors)` : '—',
        (s.peakRssMb[x.key] ?? NaN).toFixed(0),
      ]),
    );
  }
  out.push(
    '',
    "tfgate's own view of the same cells (its Prometheus metrics read before and after each): mean time inside tfgate / mean wait in the batch queue, ms; mean rows per executed batch. The rest of a client-side latency is the HTTP round trip and the client.",
    '',
  );
  const viewed = s.setups.filter((x) => s.cells.some((c) => c.setup === x.key && c.server));
  out.push(row(['set-up', ...s.users.map((u) => `${u} user${u === 1 ? '' : 's'}`)]), row(['---', ...s.users.map(() => '---:')]));
  for (const x of viewed) {
    out.push(
      row([
        x.label,
        ...s.users.map((u) => {
          const v = cell(x.key, u)?.server;
          return v ? `${ms(v.requestMs)} / ${ms(v.queueingMs)}; batch ${v.meanBatchSize.toFixed(1)}` : '—';
        }),
      ]),
    );
  }
  const chance = chanceSpread(s.cells, new Map(s.setups.map((x) => [x.key, x.label])));
  if (chance)
    out.push(
      '',
      `Cells that served alike differ by chance: at ${chance.users} user${chance.users === 1 ? '' : 's'}, ${listed(chance.labels)} never waited in a batch queue (batch ≤ 1.05 rows, queue wait ≤ 0.1 ms), yet read ${ms(chance.minMs)}–${ms(chance.maxMs)} ms, ${((chance.maxMs / chance.minMs - 1) * 100).toFixed(0)} % apart. Ratios between set-ups in this table are as uncertain.`,
    );
  out.push('', `![latency vs users](${latencyChart})`, '', `![latency percentiles](${percentileChart})`, '');

  out.push('## The event-loop experiment', '');
  out.push(
    `The same model (${r.eventLoop.modelMs.toFixed(2)} ms at batch 1) at a constant request rate (open loop, latency from each request's due time, ${r.eventLoop.seconds} s per cell), while a second client asks GET /v1/models/mlp ten times a second. Inline inference makes every request wait for whichever inference is running; tfgate's event loop only parses and answers.`,
    '',
  );
  out.push(
    row(['set-up', 'rate req/s', 'predict mean', 'predict p50', 'predict p99', 'predict mean ÷ model time', 'status p50', 'status p99']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  );
  for (const e of r.eventLoop.rows)
    out.push(
      row([
        label.get(e.setup) ?? e.setup,
        e.ratePerSec,
        ms(e.predict.meanMs),
        ms(e.predict.p50Ms),
        ms(e.predict.p99Ms),
        (e.predict.meanMs / r.eventLoop.modelMs).toFixed(2),
        ms(e.status.p50Ms),
        ms(e.status.p99Ms),
      ]),
    );
  out.push('');

  out.push('## Serving overhead', '');
  out.push(
    `tfgate :predict on half_plus_two: ${r.overhead.predictRps.toFixed(0)} req/s; a bare Hono JSON echo: ${r.overhead.echoRps.toFixed(0)} req/s (${r.overhead.client}, best of rounds): ratio ${r.overhead.ratio.toFixed(2)}.`,
    '',
  );
  const cpu = cpuPerRequestLine(r.overhead);
  if (cpu) out.push(cpu, '');
  if (r.latency) out.push(latencyMarkdown(r.latency));
  if (s.generatorCheck)
    out.push(
      '## The load generator against wrk',
      '',
      `Saturating ${s.generatorCheck.route} with the same connections: wrk ${s.generatorCheck.wrkRps.toFixed(0)} req/s, tfgate's generator ${s.generatorCheck.generatorRps.toFixed(0)} req/s (ratio ${s.generatorCheck.ratio.toFixed(3)}).`,
      '',
    );
  write(mdPath, out.join('\n'));
  return written;
}
