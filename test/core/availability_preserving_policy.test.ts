// The availability rule from one-line scenarios, as TF Serving's
// availability_preserving_policy_test.cc states its cases. A scenario lists versions as
// `<version> <state> <+ aspired | - not aspired>`, comma-separated.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { versionsToUnload, type AspiredVersionSnapshot } from '../../src/core/availability_preserving_policy.js';
import type { ManagerState } from '../../src/core/servable_state.js';

const snapshot = (scenario: string): AspiredVersionSnapshot[] =>
  scenario
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [version, state, mark] = s.split(/\s+/);
      return { version: Number(version), state: state as ManagerState, aspired: mark === '+' };
    });

const SCENARIOS: Array<[why: string, versions: string, unload: number[]]> = [
  ['the new version serves: the old one goes', '3 AVAILABLE -, 4 AVAILABLE +', [3]],
  ['the new version still loads: the old one keeps serving', '3 AVAILABLE -, 4 LOADING +', []],
  ['the new version failed: the old one keeps serving', '3 AVAILABLE -, 4 END +', []],
  ['nothing aspired (model emptied or removed): everything goes', '3 AVAILABLE -, 4 AVAILABLE -', [3, 4]],
  ['one aspired version serves: every unaspired one goes', '1 AVAILABLE -, 2 AVAILABLE -, 3 AVAILABLE +', [1, 2]],
  ['an older aspired version serving is enough', '2 AVAILABLE +, 3 AVAILABLE -, 4 LOADING +', [3]],
  ['only AVAILABLE versions are unloaded', '1 LOADING -, 2 UNLOADING -, 3 END -, 4 AVAILABLE +', []],
  ['everything aspired: nothing to do', '1 AVAILABLE +, 2 AVAILABLE +', []],
  ['no versions at all: nothing to do', '', []],
];

describe('availability preserving policy', () => {
  for (const [why, versions, unload] of SCENARIOS) {
    it(`${why}: [${versions}] → unload [${unload}]`, () => assert.deepEqual(versionsToUnload(snapshot(versions)), unload));
  }
});
