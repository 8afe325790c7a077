// The tfgate binary (as bin/tfgate runs src/main.ts) with its executor threads — those of the
// probe processes too — on test_util's faulty worker: the production binary has no test hook.
import { main } from '../../src/main.js';
import { FAULTY_EXECUTOR_WORKER } from './executor_faults.js';

void main(process.argv.slice(2), { executorWorkerFile: FAULTY_EXECUTOR_WORKER });
