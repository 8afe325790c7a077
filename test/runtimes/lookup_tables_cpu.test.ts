// Lookup tables on the embedded runtime's CPU backend (the cases: lookup_table_cases.ts).
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { lookupTableCases } from './lookup_table_cases.js';

lookupTableCases(() => new EmbeddedRuntime('cpu'), 'cpu');
