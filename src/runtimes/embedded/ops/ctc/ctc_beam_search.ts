// TensorFlow's CTC beam search (core/util/ctc/ctc_beam_search.h, ctc_beam_entry.h, the default
// ctc_beam_scorer.h), as CTCBeamSearchDecoderOp runs it: one Step per time step of a batch
// entry, then TopPaths. Each step's inputs are normalized as log-softmax (TF subtracts
// norm_offset = max + log Σ exp(x − max)), so the log probabilities are of the softmax of the
// logits. The beam is a gtl::TopN (top_n.ts, with libstdc++'s heap and sort, so ties break as
// in TF); every score is float arithmetic, each operation rounded to float as TF's `float`
// code rounds it, LogSumExp as log1pf(expf(·)). The blank is the last class.
import { invalidArgument } from '../../../../errors/status.js';
import { TopN } from './top_n.js';

const f = Math.fround;
const LOG_ZERO = -Infinity;

interface Probability {
  total: number;
  blank: number;
  label: number;
}

const logZero = (): Probability => ({ total: LOG_ZERO, blank: LOG_ZERO, label: LOG_ZERO });

interface BeamEntry {
  parent: BeamEntry | null;
  label: number;
  children: Map<number, BeamEntry>;
  oldp: Probability;
  newp: Probability;
}

const entry = (parent: BeamEntry | null, label: number): BeamEntry => ({
  parent,
  label,
  children: new Map(),
  oldp: logZero(),
  newp: logZero(),
});
const active = (e: BeamEntry) => e.newp.total !== LOG_ZERO;
const better = (a: BeamEntry, b: BeamEntry) => a.newp.total > b.newp.total;

/** ctc::LogSumExp<float>. */
function logSumExp(a: number, b: number): number {
  if (a === LOG_ZERO) return b;
  if (b === LOG_ZERO) return a;
  return a > b ? f(a + f(Math.log1p(f(Math.exp(f(b - a)))))) : f(b + f(Math.log1p(f(Math.exp(f(a - b))))));
}

function labelSeq(e: BeamEntry, mergeRepeated: boolean): number[] {
  const labels: number[] = [];
  let prev = -1;
  for (let c: BeamEntry = e; c.parent !== null; c = c.parent) {
    if (!mergeRepeated || c.label !== prev) labels.push(c.label);
    prev = c.label;
  }
  return labels.reverse();
}

export class CtcBeamSearch {
  private leaves: TopN<BeamEntry>;
  private root: BeamEntry = entry(null, -1);
  /** Beam entries made since the last reset (TF keeps them all until then). */
  entries = 0;

  constructor(
    private readonly numClasses: number,
    private readonly beamWidth: number,
  ) {
    this.leaves = new TopN(beamWidth, better);
    this.reset();
  }

  reset(): void {
    this.leaves.reset();
    this.root = entry(null, -1);
    this.root.newp.total = 0;
    this.root.newp.blank = 0;
    this.entries = 1;
    this.leaves.push(this.root);
  }

  private child(b: BeamEntry, label: number): BeamEntry {
    let c = b.children.get(label);
    if (!c) {
      c = entry(b, label);
      b.children.set(label, c);
      this.entries++;
    }
    return c;
  }

  /** One time step over this row of (log) probabilities. */
  step(input: ArrayLike<number>): void {
    const blank = this.numClasses - 1;
    let maxCoeff = f(input[0]);
    for (let i = 1; i < this.numClasses; i++) if (input[i] > maxCoeff) maxCoeff = f(input[i]);
    // The step's log-softmax normalizer: max + log Σ exp(x − max), in float.
    let sum = 0;
    for (let i = 0; i < this.numClasses; i++) sum = f(sum + f(Math.exp(f(input[i] - maxCoeff))));
    const normOffset = f(maxCoeff + f(Math.log(sum)));
    const branches = this.leaves.extract();
    this.leaves.reset();
    for (const b of branches) b.oldp = { ...b.newp };
    for (const b of branches) {
      if (b.parent !== null) {
        if (active(b.parent)) {
          const previous = b.label === b.parent.label ? b.parent.oldp.blank : b.parent.oldp.total;
          b.newp.label = logSumExp(b.newp.label, previous);
        }
        b.newp.label = f(b.newp.label + f(input[b.label] - normOffset));
      }
      b.newp.blank = f(f(b.oldp.total + input[blank]) - normOffset);
      b.newp.total = logSumExp(b.newp.blank, b.newp.label);
      this.leaves.push(b);
    }
    const isCandidate = (p: Probability) =>
      p.total > LOG_ZERO && (this.leaves.size < this.beamWidth || p.total > this.leaves.peekBottom().newp.total);
    for (const b of branches) {
      if (!isCandidate(b.oldp)) continue;
      for (let label = 0; label < this.numClasses - 1; label++) {
        const c = this.child(b, label);
        if (active(c)) continue;
        c.newp.blank = LOG_ZERO;
        const previous = c.label === b.label ? b.oldp.blank : b.oldp.total;
        c.newp.label = f(f(input[label] - normOffset) + previous);
        c.newp.total = c.newp.label;
        if (isCandidate(c.newp)) {
          if (this.leaves.size === this.beamWidth) this.leaves.peekBottom().newp = logZero();
          this.leaves.push(c);
        } else {
          c.oldp = logZero();
          c.newp = logZero();
        }
      }
    }
  }

  /** TopPaths: the n best label sequences and their log probabilities. */
  topPaths(n: number, mergeRepeated: boolean): { paths: number[][]; logProbs: number[] } {
    if (n > this.beamWidth) throw invalidArgument('requested more paths than the beam width.');
    if (n > this.leaves.size) throw invalidArgument('Less leaves in the beam search than requested.');
    const top = new TopN<BeamEntry>(n, better);
    for (const e of this.leaves.unsorted()) top.push(e);
    const best = top.extract();
    return { paths: best.slice(0, n).map((e) => labelSeq(e, mergeRepeated)), logProbs: best.slice(0, n).map((e) => e.newp.total) };
  }
}
