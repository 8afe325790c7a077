// The server set-ups the seed experiment compares, each started by the bench as its own
// process (tree) serving the same SavedModel as `mlp`:
//   naive      inference inline on the event loop, one at a time (bench/report/naive_server);
//   executors  tfgate, N executor threads, no batching;
//   processes  N tfgate processes behind one port (node:cluster), as gunicorn workers;
//   fixed T    tfgate, TF Serving batching with batch_timeout_micros = T;
//   adaptive   tfgate's adaptive batching.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startNodeProcess, startTfgate, waitModelAvailable, type RunningServer } from './processes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const MODEL_NAME = 'mlp';
export const MAX_BATCH = 32;

type SetupKind = 'naive' | 'executors' | 'processes' | 'fixed' | 'adaptive';

export interface Setup {
  key: string;
  label: string;
  kind: SetupKind;
  /** fixed: batch_timeout_micros. */
  timeoutMicros?: number;
}

export interface StartedSetup extends RunningServer {
  setup: Setup;
  url: string;
  /** One tfgate process whose metrics cover every request (not the naive server or a cluster). */
  metricsUrl?: string;
}

export interface SetupContext {
  /** tfgate's --runtime for every tfgate set-up, and the engine the naive server runs on. */
  runtime: { choice: string; resolved: string };
  /** Model base path (holds version 1). */
  modelBase: string;
  /** Folder for generated batching.cfg files. */
  workDir: string;
  executors: number;
  processes: number;
}

const METRICS_PATH = '/monitoring/prometheus/metrics';

/** tfgate set-ups export Prometheus metrics, so the bench can read the server's own view. */
function monitoringConfig(ctx: SetupContext): string {
  const file = path.join(ctx.workDir, 'monitoring.cfg');
  fs.writeFileSync(file, `prometheus_config { enable: true path: "${METRICS_PATH}" }\n`);
  return `--monitoring_config_file=${file}`;
}

function batchingConfig(ctx: SetupContext, timeoutMicros: number): string {
  const file = path.join(ctx.workDir, `batching_${timeoutMicros}.cfg`);
  // A batch thread and an executor per core (TF Serving's advice for num_batch_threads).
  fs.writeFileSync(
    file,
    `max_batch_size { value: ${MAX_BATCH} }\nbatch_timeout_micros { value: ${timeoutMicros} }\nmax_enqueued_batches { value: 1000 }\nnum_batch_threads { value: ${ctx.executors} }\n`,
  );
  return file;
}

export function describeSetups(ctx: SetupContext, timeoutsMicros: number[]): Setup[] {
  return [
    { key: 'naive', label: 'naive (inline on the event loop)', kind: 'naive' },
    { key: 'executors', label: `tfgate, ${ctx.executors} executors, no batching`, kind: 'executors' },
    { key: 'processes', label: `${ctx.processes} tfgate processes, one port`, kind: 'processes' },
    ...timeoutsMicros.map((t): Setup => ({
      key: `fixed_${t}`,
      label: `tfgate, fixed timeout ${t >= 1000 ? `${(t / 1000).toFixed(1)} ms` : `${t} µs`}`,
      kind: 'fixed',
      timeoutMicros: t,
    })),
    { key: 'adaptive', label: 'tfgate, adaptive batching', kind: 'adaptive' },
  ];
}

export async function startSetup(setup: Setup, ctx: SetupContext): Promise<StartedSetup> {
  let server: RunningServer;
  switch (setup.kind) {
    case 'naive':
      server = await startNodeProcess(
        [path.join(here, 'naive_server.js'), path.join(ctx.modelBase, '1'), '0', ctx.runtime.resolved],
        /listening (\d+)/,
      );
      break;
    case 'executors':
      server = await startTfgate(MODEL_NAME, ctx.modelBase, [
        `--runtime=${ctx.runtime.choice}`,
        `--num_executors=${ctx.executors}`,
        monitoringConfig(ctx),
      ]);
      break;
    case 'processes': {
      const port = await freePort();
      const flags = [
        `--model_name=${MODEL_NAME}`,
        `--model_base_path=${ctx.modelBase}`,
        '--rest_api_host=127.0.0.1',
        '--port=0',
        '--num_executors=1',
        `--runtime=${ctx.runtime.choice}`,
      ];
      server = await startNodeProcess(
        [path.join(here, 'cluster_server.js'), String(ctx.processes), String(port), ...flags],
        /listening (\d+)/,
      );
      break;
    }
    case 'fixed':
      server = await startTfgate(MODEL_NAME, ctx.modelBase, [
        `--runtime=${ctx.runtime.choice}`,
        `--num_executors=${ctx.executors}`,
        monitoringConfig(ctx),
        '--enable_batching',
        `--batching_parameters_file=${batchingConfig(ctx, setup.timeoutMicros!)}`,
      ]);
      break;
    case 'adaptive':
      server = await startTfgate(MODEL_NAME, ctx.modelBase, [
        `--runtime=${ctx.runtime.choice}`,
        `--num_executors=${ctx.executors}`,
        monitoringConfig(ctx),
        '--enable_batching',
        `--batching_parameters_file=${batchingConfig(ctx, 0)}`,
        '--batching_mode=adaptive',
      ]);
      break;
  }
  await waitModelAvailable(server.port, MODEL_NAME);
  const oneProcess = setup.kind === 'executors' || setup.kind === 'fixed' || setup.kind === 'adaptive';
  return {
    ...server,
    setup,
    url: `http://127.0.0.1:${server.port}/v1/models/${MODEL_NAME}:predict`,
    metricsUrl: oneProcess ? `http://127.0.0.1:${server.port}${METRICS_PATH}` : undefined,
  };
}
