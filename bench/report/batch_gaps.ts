// Reads a batch trace (src/batching/batch_trace.ts) of a saturated cell: the executor's idle
// gaps between runs while requests were waiting, what each gap was made of, and, given the
// event loop's CPU profile of the same run, what the loop ran during those gaps.
import type { BatchTimes } from '../../src/batching/batch_trace.js';

export interface TraceFile {
  clock: { performanceNow: number; hrtimeMs: number };
  batches: BatchTimes[];
  arrivals: number[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** How many of the sorted `xs` are ≤ x. */
function countUpTo(xs: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function quantile(xs: number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

/** What a profile sample was doing: the loop's entry it ran under, and the nearest tfgate module (or Node's). */
function sampleKind(stack: ProfileNode[]): string {
  const leaf = stack[0].callFrame.functionName;
  if (leaf === '(garbage collector)' || leaf === '(idle)' || leaf === '(program)') return leaf;
  const own = stack.find((n) => n.callFrame.url.includes('/dist/src/'))?.callFrame.url;
  const module = own ? own.slice(own.indexOf('/dist/src/') + 10) : undefined;
  const nodeInternal = stack.find((n) => n.callFrame.url.startsWith('node:'))?.callFrame.url;
  // The outermost named frame: the loop's entry (a socket read, microtasks, a timer, a message).
  const entry = [...stack].reverse().find((n) => n.callFrame.functionName && !n.callFrame.functionName.startsWith('('));
  return `${entry?.callFrame.functionName ?? '?'} → ${module ?? nodeInternal ?? stack[0].callFrame.url ?? '?'}`;
}

/** ms of samples by kind inside `windows` (server ms, sorted, disjoint) and in all of [t0, t1]. */
function profileIn(profile: CpuProfile, offsetMs: number, windows: Array<[number, number]>, t0: number, t1: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const kinds = new Map<number, string>();
  const kindOf = (id: number) => {
    let k = kinds.get(id);
    if (k === undefined) {
      const stack: ProfileNode[] = [];
      for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) stack.push(byId.get(x)!);
      k = sampleKind(stack.slice(0, -1)); // without the (root) node
      kinds.set(id, k);
    }
    return k;
  };
  const inGaps = new Map<string, number>();
  const all = new Map<string, number>();
  let ts = profile.startTime;
  let w = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    ts += profile.timeDeltas[i];
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const t = ts / 1000 - offsetMs;
    if (t < t0 || t > t1) continue;
    const k = kindOf(profile.samples[i]);
    all.set(k, (all.get(k) ?? 0) + dt);
    while (w < windows.length && windows[w][1] < t) w++;
    if (w < windows.length && windows[w][0] <= t) inGaps.set(k, (inGaps.get(k) ?? 0) + dt);
  }
  return { inGaps, all };
}

export function analyseTrace(trace: TraceFile, hrStart: number, hrEnd: number, profile?: unknown): string {
  const offset = trace.clock.hrtimeMs - trace.clock.performanceNow;
  const t0 = hrStart - offset;
  const t1 = hrEnd - offset;
  const ran = trace.batches.filter((b) => Number.isFinite(b.threadStart) && Number.isFinite(b.threadEnd));
  const byTaken = [...trace.batches].sort((a, b) => a.takenAt - b.takenAt);
  const takenAt = byTaken.map((b) => b.takenAt);
  const takenRows: number[] = [];
  for (const b of byTaken) takenRows.push((takenRows[takenRows.length - 1] ?? 0) + b.rows);
  const rowsTakenBy = (t: number) => {
    const n = countUpTo(takenAt, t);
    return n ? takenRows[n - 1] : 0;
  };
  const runs = ran.filter((b) => b.threadStart >= t0 && b.threadEnd <= t1).sort((a, b) => a.threadStart - b.threadStart);
  const lines: string[] = [];
  if (runs.length < 2) return 'fewer than two batches in the window';
  const span = runs[runs.length - 1].threadEnd - runs[0].threadStart;
  let busy = 0;
  const gapsQueued: number[] = [];
  let gapsIdle = 0;
  const parts = {
    ahead: [] as number[],
    handback: [] as number[],
    freeToTake: [] as number[],
    stack: [] as number[],
    handoff: [] as number[],
  };
  let aheadCount = 0;
  let aheadGap = 0;
  const windows: Array<[number, number]> = [];
  for (let i = 0; i < runs.length; i++) {
    const a = runs[i];
    busy += a.threadEnd - a.threadStart;
    const b = runs[i + 1];
    if (!b) break;
    const gap = b.threadStart - a.threadEnd;
    // Requests waiting at the end of the run: taken ahead for the next batch, or arrived and in no batch taken yet.
    const waiting = b.takenAt <= a.threadEnd || countUpTo(trace.arrivals, a.threadEnd) - rowsTakenBy(a.threadEnd) > 0;
    if (!waiting) {
      gapsIdle += Math.max(0, gap);
      continue;
    }
    gapsQueued.push(Math.max(0, gap));
    if (gap > 0) windows.push([a.threadEnd, b.threadStart]);
    if (b.sentAt <= a.threadEnd) {
      aheadCount++;
      aheadGap += Math.max(0, gap);
      parts.ahead.push(gap);
    } else {
      parts.handback.push(a.outputsAt - a.threadEnd);
      parts.freeToTake.push(b.takenAt - a.freedAt);
      parts.stack.push(b.sentAt - b.takenAt);
      parts.handoff.push(b.threadStart - b.sentAt);
    }
  }
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const rows = sum(runs.map((r) => r.rows));
  lines.push(
    `window ${(t1 - t0).toFixed(0)} ms; runs ${runs.length} over ${span.toFixed(0)} ms, ${(rows / runs.length).toFixed(1)} rows each (${runs.filter((r) => r.rows === 32).length} at 32); ` +
      `executor in runs ${((100 * busy) / span).toFixed(1)} % of the span; mean run ${(busy / runs.length).toFixed(3)} ms`,
  );
  const gq = sum(gapsQueued);
  lines.push(
    `idle gaps while requests waited: ${gapsQueued.length}, ${gq.toFixed(1)} ms = ${((100 * gq) / span).toFixed(1)} % of the span; ` +
      `per gap mean ${(gq / Math.max(1, gapsQueued.length)).toFixed(3)} ms, median ${quantile(gapsQueued, 0.5).toFixed(3)}, p90 ${quantile(gapsQueued, 0.9).toFixed(3)}, p99 ${quantile(gapsQueued, 0.99).toFixed(3)}; ` +
      `gaps with nothing waiting: ${gapsIdle.toFixed(1)} ms`,
  );
  lines.push(
    `  next batch already on the thread's line (sent before the run ended): ${aheadCount} gaps, ${aheadGap.toFixed(1)} ms (mean ${(aheadGap / Math.max(1, aheadCount)).toFixed(3)} ms: the thread's own turnaround)`,
  );
  const n = parts.handback.length;
  const m = (xs: number[]) => (xs.length ? sum(xs) / xs.length : NaN);
  lines.push(
    `  next batch sent after the run ended: ${n} gaps, ${sum(gapsQueued) - aheadGap > 0 ? (gq - aheadGap).toFixed(1) : '0'} ms; mean parts (ms): ` +
      `answer back on the loop ${m(parts.handback).toFixed(3)} (p90 ${quantile(parts.handback, 0.9).toFixed(3)}), ` +
      `executor freed → next batch taken ${m(parts.freeToTake).toFixed(3)}, stacking ${m(parts.stack).toFixed(3)}, ` +
      `sent → started on the thread ${m(parts.handoff).toFixed(3)} (p90 ${quantile(parts.handoff, 0.9).toFixed(3)})`,
  );
  const taken = trace.batches.filter((b) => b.takenAt >= t0 && b.takenAt <= t1);
  lines.push(
    `batches taken ahead of a busy executor: ${taken.filter((b) => b.ahead).length} of ${taken.length}; answering a batch (resolve → next check phase) mean ${m(taken.map((b) => b.afterAnswersAt - b.answeredAt).filter(Number.isFinite)).toFixed(3)} ms; ` +
      `outputs back → tasks resolved ${m(taken.map((b) => b.answeredAt - b.outputsAt).filter(Number.isFinite)).toFixed(3)} ms`,
  );
  if (profile) {
    const p = profileIn(profile as CpuProfile, offset, windows, t0, t1);
    const top = (mp: Map<string, number>, total: number) =>
      [...mp]
        .sort((x, y) => y[1] - x[1])
        .slice(0, 14)
        .map(([k, ms]) => `    ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${ms.toFixed(1).padStart(8)} ms  ${k}`)
        .join('\n');
    const gapTotal = sum([...p.inGaps.values()]);
    const allTotal = sum([...p.all.values()]);
    lines.push(`event loop during the gaps (CPU profile samples, ${gapTotal.toFixed(0)} ms):\n${top(p.inGaps, gapTotal)}`);
    lines.push(`event loop over the whole window (${allTotal.toFixed(0)} ms):\n${top(p.all, allTotal)}`);
  }
  return lines.join('\n');
}
