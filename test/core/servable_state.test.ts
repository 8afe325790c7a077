// The version state machine is data: every step the manager takes is in the table, and a step
// outside it is refused.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ALLOWED_TRANSITIONS, IllegalTransition, nextState, type ManagerState } from '../../src/core/servable_state.js';

const STATES = Object.keys(ALLOWED_TRANSITIONS) as ManagerState[];

describe('servable state machine', () => {
  it('the lives the manager gives a version are paths through the table', () => {
    const lives: ManagerState[][] = [
      ['START', 'LOADING', 'AVAILABLE', 'UNLOADING', 'END'], // served, then unloaded
      ['START', 'LOADING', 'END'], // failed to load, or dropped while loading
    ];
    for (const life of lives) for (let i = 1; i < life.length; i++) assert.equal(nextState(life[i - 1]!, life[i]!), life[i]);
  });

  it('every other step is refused', () => {
    for (const from of STATES) {
      for (const to of STATES) {
        if (ALLOWED_TRANSITIONS[from].includes(to)) continue;
        assert.throws(() => nextState(from, to), IllegalTransition, `${from} → ${to}`);
      }
    }
  });

  it('END is final and every state reaches it', () => {
    assert.deepEqual(ALLOWED_TRANSITIONS.END, []);
    const reachesEnd = (s: ManagerState, seen = new Set<ManagerState>()): boolean =>
      s === 'END' || (!seen.has(s) && ALLOWED_TRANSITIONS[s].some((t) => reachesEnd(t, new Set([...seen, s]))));
    for (const s of STATES) assert.ok(reachesEnd(s), s);
  });
});
