// An open loop's schedule (wrk2-style): call i is due at t0 + i/rate and starts then, whatever
// the answers before it do, so a slow server shows as queueing, not as fewer calls.

/** Starts `send(due)` at each due time for `durationMs`; resolves once every call settled. */
export async function openLoop(ratePerSec: number, durationMs: number, send: (due: number) => Promise<unknown>): Promise<void> {
  const pending = new Set<Promise<unknown>>();
  const t0 = performance.now();
  for (let i = 0; ; i++) {
    const due = t0 + (i * 1000) / ratePerSec;
    if (due >= t0 + durationMs) break;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const p = send(due);
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }
  await Promise.all(pending);
}
