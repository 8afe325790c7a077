// Adaptive against the best fixed timeout chosen on other rounds than those it is measured on.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { heldOutComparison } from '../../bench/report/held_out.js';

const close = (x: number, y: number) => Math.abs(x - y) < 1e-9;

describe('held-out comparison with the best fixed timeout', () => {
  it('chooses on one fold, measures on the other: one lucky round does not make a timeout the baseline', () => {
    // f1 had one lucky round (6 ms) and is otherwise slower than f0; adaptive serves as f0 does.
    const fixed = new Map([
      ['f0', [10, 10, 10, 10]],
      ['f1', [6, 11, 11, 11]],
    ]);
    const h = heldOutComparison([10, 10, 10, 10], fixed);
    // Chosen after the fact, f1's 9.75 ms mean makes adaptive miss by chance: 10 / 9.75.
    assert.equal(h.afterTheFact.setup, 'f1');
    assert.ok(close(h.afterTheFact.ratio, 10 / 9.75));
    // Even rounds choose f1 (8.5 vs 10), measured on the odd rounds (11, 11); odd rounds choose f0, measured on the even (10, 10).
    assert.deepEqual([h.chosenOnEven, h.chosenOnOdd], ['f1', 'f0']);
    assert.ok(close(h.fixedMean, 10.5) && close(h.adaptiveMean, 10));
    assert.ok(close(h.ratio, 10 / 10.5));
    assert.deepEqual(
      h.perRound.map((r) => r.toFixed(3)),
      ['1.000', '0.909', '1.000', '0.909'],
    );
  });

  it('a set-up that is truly faster is chosen on both folds and judged on every round', () => {
    const fixed = new Map([
      ['f0', [12, 13, 12, 13]],
      ['f1', [9, 10, 9, 10]],
    ]);
    const h = heldOutComparison([10, 11, 10, 11], fixed);
    assert.deepEqual([h.chosenOnEven, h.chosenOnOdd, h.afterTheFact.setup], ['f1', 'f1', 'f1']);
    assert.ok(close(h.ratio, 10.5 / 9.5) && close(h.afterTheFact.ratio, h.ratio));
    assert.throws(() => heldOutComparison([10], fixed), /two rounds/);
  });
});
