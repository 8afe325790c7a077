// The latency bench as Markdown: a section of its own file (bench:latency) or of the report.
import type { LatencyResults } from './latency_bench.js';
import { cpuPerRequestLine } from '../report/overhead_experiment.js';
import { grpcCpuLine } from './grpc_cpu.js';

const f = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : '–');

/** Server-Timing entries in the order a request meets them. */
const STAGES = ['parse', 'queue', 'handoff', 'run', 'handback', 'serialise'];

export function latencyMarkdown(r: LatencyResults, heading = '##'): string {
  const out: string[] = [];
  out.push(`${heading} Latency when traffic is light`, '');
  out.push(
    "tfgate (executors, no batching) beside the naive inline server on the same engine, set-ups measured in turn at each point, each with the machine to itself. Means in ms; open loop counts from each request's due time.",
    '',
  );
  out.push('| target | measured | goal | |', '|---|---|---|---|');
  for (const t of r.targets) out.push(`| ${t.name} | ${t.measured} | ${t.goal} | ${t.met ? 'met' : '**missed**'} |`);
  out.push('');
  const cpu = r.overhead && cpuPerRequestLine(r.overhead);
  if (cpu) out.push(`REST beside the echo: ${cpu}`, '');
  if (r.grpc) out.push(`gRPC beside REST: ${grpcCpuLine(r.grpc)}`, '');
  for (const rt of r.runtimes) {
    out.push(`${heading}# ${rt.runtime.resolved}`, '', rt.runtime.reason, '');
    const rates = rt.models[0]?.open.map((p) => p.ratePerSec) ?? [];
    out.push(
      `| model | batch 1 in-process | with think time | set-up | 1 user | ${rates.map((x) => `${x} req/s`).join(' | ')} |`,
      `|---|---|---|---|---|${rates.map(() => '---|').join('')}`,
    );
    for (const m of rt.models) {
      for (const who of ['tfgate', 'naive'] as const) {
        out.push(
          `| ${who === 'tfgate' ? m.label : ''} | ${who === 'tfgate' ? f(m.batch1Ms, 3) : ''} | ${who === 'tfgate' ? f(m.batch1AfterThinkMs, 3) : ''} | ${who} | ${f(m.oneUser[who].meanMs)} | ${m.open.map((p) => f(p[who].meanMs)).join(' | ')} |`,
        );
      }
    }
    out.push(
      '',
      `Where a lone request's time goes inside tfgate (Server-Timing means, one request at a time with the think time between; client mean beside):`,
      '',
    );
    out.push(`| model | ${STAGES.join(' | ')} | client |`, `|---|${STAGES.map(() => '---|').join('')}---|`);
    for (const m of rt.models)
      out.push(`| ${m.label} | ${STAGES.map((s) => f(m.breakdown.serverMs[s] ?? 0, 3)).join(' | ')} | ${f(m.breakdown.meanMs, 3)} |`);
    const withHop = rt.echo.some((e) => e.hopEcho);
    out.push(
      '',
      `half_plus_two one request at a time, tfgate beside a bare Hono JSON echo${withHop ? ' and the same echo sending each body to a worker thread and back before answering (the floor for a server that keeps work off its event loop)' : ''} (median ms):`,
      '',
    );
    if (withHop)
      out.push(
        '| idle before each | tfgate | echo | tfgate − echo | echo through a thread | thread − echo | tfgate − echo through a thread |',
        '|---|---|---|---|---|---|---|',
      );
    else out.push('| idle before each | tfgate | echo | difference |', '|---|---|---|---|');
    for (const e of rt.echo) {
      const cells = [
        e.gapMs ? `${e.gapMs} ms` : 'none',
        f(e.tfgate.medianMs, 3),
        f(e.echo.medianMs, 3),
        f(e.tfgate.medianMs - e.echo.medianMs, 3),
      ];
      if (withHop)
        cells.push(
          f(e.hopEcho?.medianMs ?? NaN, 3),
          f((e.hopEcho?.medianMs ?? NaN) - e.echo.medianMs, 3),
          f(e.tfgate.medianMs - (e.hopEcho?.medianMs ?? NaN), 3),
        );
      out.push(`| ${cells.join(' | ')} |`);
    }
    out.push('');
  }
  for (const [choice, why] of Object.entries(r.skipped)) out.push(`Runtime ${choice} skipped: ${why}`, '');
  return out.join('\n');
}
