// Adaptive batching against the best fixed timeout, without the winner's curse. Picking the
// fixed timeout with the lowest mean and comparing adaptive with that same mean favours the
// fixed side by chance alone: the minimum of several noisy means sits below their true values
// (with five set-ups that serve alike, the least of five draws). So the rounds are split in
// two folds (even and odd rounds); the best fixed timeout is chosen on one fold and measured
// on the other, both ways, and adaptive is compared round by round with the timeout chosen on
// the rounds it is not in. Every round still counts once on each side.

export interface HeldOut {
  /** The fixed set-up chosen on the even rounds, and the one chosen on the odd rounds. */
  chosenOnEven: string;
  chosenOnOdd: string;
  /** adaptive's mean over all rounds ÷ the held-out choices' mean over the same rounds. */
  ratio: number;
  adaptiveMean: number;
  fixedMean: number;
  /** Per round: adaptive ÷ the fixed set-up chosen on the other fold, in that round. */
  perRound: number[];
  /** The old way, for reference: the least fixed mean over all rounds, chosen after the fact. */
  afterTheFact: { setup: string; ratio: number };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fold = (xs: number[], parity: number) => xs.filter((_, i) => i % 2 === parity);

function best(fixed: ReadonlyMap<string, number[]>, pick: (xs: number[]) => number[]): string {
  let bestLabel = '';
  let bestMean = Infinity;
  for (const [label, xs] of fixed) {
    const m = mean(pick(xs));
    if (m < bestMean) [bestLabel, bestMean] = [label, m];
  }
  return bestLabel;
}

/**
 * `adaptive` and each fixed set-up's per-round means (lower is better), in round order; at
 * least two rounds.
 */
export function heldOutComparison(adaptive: number[], fixed: ReadonlyMap<string, number[]>): HeldOut {
  if (adaptive.length < 2) throw new Error('a held-out comparison needs two rounds or more');
  const chosenOnEven = best(fixed, (xs) => fold(xs, 0));
  const chosenOnOdd = best(fixed, (xs) => fold(xs, 1));
  // An even round is compared with the timeout chosen on the odd rounds, and the other way round.
  const baseline = adaptive.map((_, i) => fixed.get(i % 2 === 0 ? chosenOnOdd : chosenOnEven)![i]);
  const adaptiveMean = mean(adaptive);
  const fixedMean = mean(baseline);
  const afterTheFact = best(fixed, (xs) => xs);
  return {
    chosenOnEven,
    chosenOnOdd,
    ratio: adaptiveMean / fixedMean,
    adaptiveMean,
    fixedMean,
    perRound: adaptive.map((a, i) => a / baseline[i]),
    afterTheFact: { setup: afterTheFact, ratio: adaptiveMean / mean(fixed.get(afterTheFact)!) },
  };
}
