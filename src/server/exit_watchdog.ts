// The shutdown's last resort. A process's exit can hang where no timer of its own can help:
// process.exit() joins every worker thread, and a thread waiting for a file read that never
// ends (a FIFO, a hung network mount) never finishes; libuv's thread pool is joined at exit
// too. So the bound is kept from outside: a small watchdog process kills this one (SIGKILL)
// at the deadline, unless this one has ended first — it knows by its stdin, a pipe from this
// process that the kernel closes when this process goes, so it never kills a reused pid. It
// says so on the shared stderr, as one line of the server's JSON log.
import { spawn } from 'node:child_process';

const WATCHDOG = `
const [pid, ms, msg] = [Number(process.argv[1]), Number(process.argv[2]), process.argv[3]];
setTimeout(() => {
  try {
    process.kill(pid, 'SIGKILL');
    process.stderr.write(JSON.stringify({ level: 40, time: new Date().toISOString(), pid, name: 'tfgate', event: 'exit_watchdog', msg }) + '\\n');
  } catch {}
  process.exit(0);
}, ms);
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
`;

/** Kills this process at `ms` from now unless it has exited by then; `why` is logged if it comes to that. */
export function armExitWatchdog(ms: number, why: string, onError: (e: Error) => void): void {
  const child = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), String(Math.max(0, Math.round(ms))), why], {
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  child.on('error', onError);
  // The watchdog keeps nothing alive here: only the pipe's open end matters to it.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
}
