// The runtime contract on the embedded runtime on TF.js's pure-JS CPU backend.
import { fixtureCases } from './fixture_cases.js';
import { cpuRuntime } from './runtime_under_test.js';

fixtureCases(cpuRuntime());
