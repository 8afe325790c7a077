// Runs the test suite: every compiled test/**/*.test.ts, two files at a time, the slowest first.
// `node --test dist/test/` would also start every other file under dist/test/ (helpers, op case
// tables, print scripts) as a test file, each a process of its own, and it runs the files in path
// order, so a slow file late in the alphabet stretches the run while the other lane is idle.
// Files whose source is gone (a stale dist/) are not run. Arguments: paths that the files to run
// must start with (e.g. test/rest), and --test-reporter=tap|spec|dot (default: spec on a TTY, tap otherwise).
import fs from 'node:fs';
import path from 'node:path';
import { run } from 'node:test';
import { dot, spec, tap } from 'node:test/reporters';
import { REPO_ROOT } from './paths.js';

/**
 * The slowest files, slowest first (wall seconds in a whole-suite run): started first, they
 * run beside the many short files instead of after them, and the two lanes end together.
 * A file missing here runs after them in path order; a name here that no longer exists is skipped.
 */
const SLOWEST_FIRST = [
  'test/runtimes/corpus.test.ts',
  'test/runtimes/contract/contract_cpu.test.ts',
  'test/runtimes/contract/contract_executor.test.ts',
  'test/cli/cli.test.ts',
  'test/integration/server_fs_reliability.test.ts',
  'test/integration/server_shutdown.test.ts',
  'test/deploy/kubernetes_manifests.test.ts',
  'test/runtimes/verify_on_load.test.ts',
  'test/integration/server_verify_on_load.test.ts',
  'test/integration/server_config_limits.test.ts',
  'test/integration/server_memory.test.ts',
  'test/deploy/deploy_files.test.ts',
  'test/integration/server_unload_memory.test.ts',
  'test/integration/server_batching_parameters.test.ts',
  'test/integration/server_burst_memory.test.ts',
  'test/bench/grpc_cpu.test.ts',
  'test/integration/grpc_server.test.ts',
];

const CONCURRENCY = 2;

function testSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return testSources(p);
    return e.name.endsWith('.test.ts') ? [path.relative(REPO_ROOT, p).split(path.sep).join('/')] : [];
  });
}

const args = process.argv.slice(2);
const reporterArg = args.find((a) => a.startsWith('--test-reporter='))?.split('=')[1];
const prefixes = args.filter((a) => !a.startsWith('--'));
const sources = testSources(path.join(REPO_ROOT, 'test'))
  .filter((f) => prefixes.length === 0 || prefixes.some((p) => f.startsWith(p)))
  .sort();
const ordered = [...SLOWEST_FIRST.filter((f) => sources.includes(f)), ...sources.filter((f) => !SLOWEST_FIRST.includes(f))];
const files = ordered.map((f) => path.join(REPO_ROOT, 'dist', f.replace(/\.ts$/, '.js')));
const missing = files.filter((f) => !fs.existsSync(f));
if (missing.length) {
  console.error(`not built (run npm run build): ${missing.join(', ')}`);
  process.exit(1);
}

const reporterName = reporterArg ?? (process.stdout.isTTY ? 'spec' : 'tap');
const reporters = { tap: () => tap, dot: () => dot, spec: () => new spec() };
if (!(reporterName in reporters)) {
  console.error(`unknown --test-reporter ${reporterName}: tap, spec or dot`);
  process.exit(1);
}

const stream = run({ files, concurrency: CONCURRENCY });
// A failing test, or a file that exits non-zero without one, fails the run.
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.compose(reporters[reporterName as keyof typeof reporters]()).pipe(process.stdout);
