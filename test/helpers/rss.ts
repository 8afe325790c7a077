// A process's resident memory, sampled from /proc (Linux), for tests that bound it.
import fs from 'node:fs';

export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** Samples a process's RSS every `everyMs` until stop(); stop() gives the peak seen. */
export function rssSampler(pid: number, everyMs = 50): { stop: () => number } {
  let peak = rssBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch {
      // the process is gone: the test's own checks say so
    }
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

export const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
