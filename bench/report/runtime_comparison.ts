// Two or more bench reports of the same run, one per tfgate runtime, side by side: the model's
// own speed (batch 1, offline throughput at the largest batch), every set-up's saturated
// throughput and 1-user latency, and each figure's ratio to the first runtime's — with the
// target that ONNX Runtime's saturated throughput is at least 2.5× WASM's.
import fs from 'node:fs';
import type { BenchResults } from './results.js';

const label = (r: BenchResults) => (r.runtime ? `${r.runtime.choice} (${r.model.backend})` : r.name);

export function writeRuntimeComparison(results: BenchResults[], file: string): string {
  const [base] = results;
  const out: string[] = [`# tfgate bench: runtimes side by side (${base.quick ? 'quick run' : 'full run'}, ${base.date.slice(0, 10)})`, ''];
  out.push(
    `Command: \`${base.command}\`. Each runtime's report: ${results.map((r) => `\`bench/results/${r.name}.json\``).join(', ')}. Every set-up (the naive server included) runs on the runtime of its column.`,
    '',
  );
  const cols = results.map(label);
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  out.push(
    row(['figure', ...cols, ...results.slice(1).map((r) => `${label(r)} ÷ ${label(base)}`)]),
    row(['---', ...cols.map(() => '---:'), ...results.slice(1).map(() => '---:')]),
  );
  const line = (name: string, f: (r: BenchResults) => number | undefined, digits = 1) => {
    const v = results.map(f);
    out.push(
      row([
        name,
        ...v.map((x) => (x === undefined ? '–' : x.toFixed(digits))),
        ...v.slice(1).map((x) => (x === undefined || v[0] === undefined ? '–' : (x / v[0]).toFixed(2))),
      ]),
    );
  };
  line('model, batch 1, ms (in-process)', (r) => r.model.batch1Ms, 2);
  line(`model, offline items/s at batch ${base.model.maxBatchSize}`, (r) => r.model.offlineItemsPerSecAtMaxBatch, 0);
  for (const s of base.seed.setups) {
    line(`${s.label}: saturated req/s`, (r) => r.seed.saturation.find((x) => x.setup === s.key)?.rps, 0);
    line(`${s.label}: 1 user, mean ms`, (r) => r.seed.cells.find((c) => c.setup === s.key && c.users === 1)?.latency.meanMs, 2);
  }
  const onnx = results.find((r) => r.runtime?.resolved.startsWith('onnx'));
  const wasm = results.find((r) => r.runtime && ['wasm', 'embedded'].includes(r.runtime.resolved));
  if (onnx && wasm) {
    const a = onnx.seed.saturation.find((x) => x.setup === 'adaptive')?.rps;
    const b = wasm.seed.saturation.find((x) => x.setup === 'adaptive')?.rps;
    if (a !== undefined && b !== undefined) {
      const ratio = a / b;
      out.push(
        '',
        `Target: saturated throughput (adaptive batching) with ONNX Runtime ≥ 2.5 × WASM: **${ratio.toFixed(2)}** (${a.toFixed(0)} vs ${b.toFixed(0)} req/s) — ${ratio >= 2.5 ? 'met' : 'missed'}.`,
      );
    }
  }
  fs.writeFileSync(file, out.join('\n') + '\n');
  return file;
}
