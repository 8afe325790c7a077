// Starts the real tfgate binary on a free loopback port and stops it after the test.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

export const TFGATE_BIN = path.join(REPO_ROOT, 'bin', 'tfgate');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  port: number;
  url: (p: string) => string;
  logs: () => string;
  stop: () => Promise<number | null>;
  proc: ChildProcess;
}

/**
 * Spawns `tfgate <args> --rest_api_port=<free>` and waits until it answers HTTP and, unless
 * `whileLoading`, until the first loads have settled (the ports open while models load).
 * `probe`: what tells that the server answers and has loaded, in place of an HTTP GET of
 * readyPath and the status poll (e.g. an HTTPS request); it rejects until then.
 */
export async function startServer(
  args: string[],
  opts: {
    cwd?: string;
    readyPath?: string;
    timeoutMs?: number;
    env?: Record<string, string>;
    probe?: (port: number) => Promise<unknown>;
    whileLoading?: boolean;
    bin?: string;
  } = {},
): Promise<RunningServer> {
  const port = await freePort();
  // gRPC stays off unless the test gives its own --port.
  const grpcOff = args.some((a) => a.startsWith('--port=')) ? [] : ['--port=0'];
  // One executor thread unless the test asks for more: the default (one per core) made every
  // test server load each model on every core, and two test files run at once on CI's cores.
  const oneExecutor = args.some((a) => a.startsWith('--num_executors')) ? [] : ['--num_executors=1'];
  const proc = spawn(
    process.execPath,
    [opts.bin ?? TFGATE_BIN, ...args, `--rest_api_port=${port}`, '--rest_api_host=127.0.0.1', ...grpcOff, ...oneExecutor],
    {
      cwd: opts.cwd ?? REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.env && { env: { ...process.env, ...opts.env } }),
    },
  );
  let logs = '';
  proc.stdout!.on('data', (d) => (logs += d));
  proc.stderr!.on('data', (d) => (logs += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const url = (p: string) => `http://127.0.0.1:${port}${p}`;
  // A bound, not a measurement: a loaded CI machine may take a while to load several models.
  const deadline = Date.now() + (opts.timeoutMs ?? 120000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`tfgate exited with ${proc.exitCode}:\n${logs}`);
    try {
      await (opts.probe ? opts.probe(port) : fetch(url(opts.readyPath ?? '/v1/models/__probe__')));
      break;
    } catch {
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`tfgate did not start in time:\n${logs}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  while (!opts.whileLoading && !opts.probe && (await firstLoadsRunning(url('/monitoring/tfgate/status')))) {
    if (proc.exitCode !== null) throw new Error(`tfgate exited with ${proc.exitCode}:\n${logs}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`tfgate's first loads did not settle in time:\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    url,
    logs: () => logs,
    proc,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Whether the server still runs the first loads of its start-up config (its status says `starting`). */
async function firstLoadsRunning(statusUrl: string): Promise<boolean> {
  try {
    const r = await fetch(statusUrl);
    return r.ok && ((await r.json()) as { starting?: boolean }).starting === true;
  } catch {
    return true;
  }
}

export async function postJson(
  url: string,
  body: unknown | string,
): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const res = await fetch(url, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

export async function getJson(url: string): Promise<{ status: number; json: any }> {
  const res = await fetch(url);
  return { status: res.status, json: await res.json() };
}

/**
 * Waits until `versions` versions (default one) of each model are AVAILABLE (the server
 * answers before its first loads end).
 */
export async function waitAvailable(server: RunningServer, models: string[], timeoutMs = 20_000, versions = 1): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const m of models) {
    for (;;) {
      const r = await fetch(server.url(`/v1/models/${m}`));
      const states = r.ok ? (((await r.json()) as { model_version_status?: { state: string }[] }).model_version_status ?? []) : [];
      if (states.filter((v) => v.state === 'AVAILABLE').length >= versions) break;
      if (Date.now() > deadline) throw new Error(`${versions} version(s) of ${m} not AVAILABLE in time:\n${server.logs()}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
}
