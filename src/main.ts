// Entry point of `tfgate` and `tensorflow_model_server`.
import { readFileSync } from 'node:fs';
import { FlagError, helpText, parseFlags, resolveServerOptions, type ServerOptions } from './config/flags.js';
import { ConfigError } from './config/text_format.js';
import { UsageError } from './cli/cli_args.js';
import { ModelServer } from './server/model_server.js';
import { createLog } from './server/logger.js';
import { setInternalErrorReporter } from './errors/status.js';
import { RuntimeUnavailableError, selectRuntime } from './runtimes/runtime_selection.js';
import { readEngineConfigFiles } from './server/engine_config_files.js';
import { checkEngineForRuntime, EngineSettingRefused } from './config/session_config.js';
import { libtensorflowEnvironment } from './runtimes/tfjs_node/libtensorflow_environment.js';
import { onnxRuntimeEnvironment } from './runtimes/onnx/ort_environment.js';
import { armExitWatchdog } from './server/exit_watchdog.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const log = createLog();
// An error in tfgate's own code reaches the client as INTERNAL with an id; its details go here.
setInternalErrorReporter((id, e) =>
  log(`Internal error ${id}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, 'error', { event: 'internal_error', id }),
);
// Node's process warnings (a dependency's notice, e.g. the AWS SDK's about Node versions) join
// the JSON-lines log instead of stderr's plain text: Node's own printer is replaced.
process.removeAllListeners('warning');
process.on('warning', (w) => log(`${w.name}: ${w.message}`, 'warn', { event: 'process_warning', name: w.name }));
/** After the drain, how long unloading may take before the process exits anyway. */
const UNLOAD_GRACE_SECONDS = 10;
/** Once unloaded, how long the exit may take before the watchdog ends the process. */
const EXIT_GRACE_MS = 2000;

type SavedModelCli = typeof import('./cli/saved_model_cli.js');

// The `show`/`run` commands load the engines in this process; the server never does (its engines
// run in executor threads), so the CLI is imported only when asked for: a server start then loads
// 152 modules instead of 354, and none of TF.js's large CommonJS bundles.
async function subcommand(command: 'show' | 'run', args: string[], out: (s: string) => void): Promise<void> {
  const cli: SavedModelCli = await import('./cli/saved_model_cli.js');
  try {
    await (command === 'show' ? cli.showCommand(args, out) : cli.runCommand(args, out));
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n${command === 'show' ? cli.SHOW_USAGE : cli.RUN_USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(1);
  }
}

/** What tests substitute (ModelServer's seams); the binary gives none. */
export async function main(argv: string[], seams: { executorWorkerFile?: string } = {}): Promise<void> {
  const out = (s: string) => process.stdout.write(s);
  Object.assign(process.env, onnxRuntimeEnvironment());
  if (argv[0] === 'show' || argv[0] === 'run') return subcommand(argv[0], argv.slice(1), out);

  let server: ModelServer;
  let options: ServerOptions;
  try {
    const flags = parseFlags(argv);
    if (flags.values.help) {
      out(helpText());
      return;
    }
    if (flags.values.version) {
      out(`TensorFlow ModelServer: tfgate-${version()}\nTensorFlow Library: TF.js (embedded runtime)\n`);
      return;
    }
    options = readEngineConfigFiles(resolveServerOptions(flags));
    Object.assign(process.env, libtensorflowEnvironment(options.engine));
    const selection = await selectRuntime(options.runtime);
    log(`Runtime: ${selection.runtime}: ${selection.reason}`, 'info', { event: 'runtime_selected', runtime: selection.runtime });
    for (const note of checkEngineForRuntime(options.engine, selection.runtime)) log(note, 'info', { event: 'harmless_setting' });
    server = new ModelServer(options, log, selection.runtime, seams);
    if (options.dryRun) {
      out(`${JSON.stringify(await server.checkConfig(), null, 2)}\n`);
      return;
    }
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`${e.message}\n\n${helpText()}`);
      process.exit(2);
    }
    // A flag the runtime in force cannot honour is a bad command line; a file's field, bad config.
    if (e instanceof EngineSettingRefused && e.flag) {
      log(e.message, 'error', { event: 'setting_refused', flag: e.flag });
      process.exit(2);
    }
    if (e instanceof ConfigError || e instanceof RuntimeUnavailableError) {
      log(e.message, 'error');
      process.exit(1);
    }
    if (options! && options.dryRun) {
      log(`dry run: ${(e as Error).message}`, 'error');
      process.exit(1);
    }
    throw e;
  }
  // The first signal drains: no new connections, answers for every request already received
  // (flushed to the kernel, connections closed), then models unload — loads under way are
  // abandoned — and the process exits 0. Past the bound what still runs is cut and logged;
  // exit 1. Whatever is loading, the process is gone by the drain bound plus the unload grace
  // (exit_watchdog.ts). A second signal finds no handler left (once) and ends the process at once.
  const shutdown = async (signal: string) => {
    const bound = options.shutdownDrainSeconds;
    log(`${signal} received: draining (at most ${bound} s) and unloading`);
    const lastMs = (bound + UNLOAD_GRACE_SECONDS) * 1000;
    armExitWatchdog(
      lastMs,
      `shutdown took longer than --shutdown_drain_seconds=${bound} plus ${UNLOAD_GRACE_SECONDS} s to unload, and the exit hung: killed (SIGKILL)`,
      (e) => log(`could not start the exit watchdog: ${e.message}`, 'warn'),
    );
    // A backstop should unloading itself hang after the drain (the watchdog ends an exit that hangs).
    setTimeout(() => {
      log(`shutdown took longer than --shutdown_drain_seconds=${bound} plus ${UNLOAD_GRACE_SECONDS} s to unload: exiting`, 'warn');
      process.exit(1);
    }, lastMs - 500).unref();
    const report = await server.stop(bound * 1000);
    if (!report.drained)
      log(
        `drain took longer than --shutdown_drain_seconds=${bound}: ${report.cutRequests.length} HTTP request(s) and ${report.cutCalls.length} gRPC call(s) cut`,
        'warn',
        { event: 'drain_bound_passed' },
      );
    // The exit itself waits for every executor thread to end; one stuck in a read never does.
    armExitWatchdog(
      EXIT_GRACE_MS,
      `the exit did not end within ${EXIT_GRACE_MS} ms of unloading (an executor thread stuck, e.g. in a read that never ends): killed (SIGKILL)`,
      () => {},
    );
    process.exit(report.drained ? 0 : 1);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  try {
    await server.start();
  } catch (e) {
    log(e instanceof ConfigError ? e.message : `failed to start: ${(e as Error).message}`, 'error');
    await server.stop();
    process.exit(1);
  }
}
