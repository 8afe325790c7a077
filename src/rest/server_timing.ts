// An answer's Server-Timing header: where the request's time went.
import type { RunStats } from '../services/servable_version.js';

/**
 * The text is written byte by byte into this buffer and read out as one string: joined with +,
 * each part and each number was a short string of its own (~0.6–0.9 KB of the event loop's
 * garbage a request, measured with the sampling heap profiler). Large enough for the longest
 * text: seven parts of at most 15 + 26 characters (a toFixed(3) past 10^9 ms), and the batch's.
 */
const scratch = Buffer.allocUnsafe(512);
let at = 0;

function put(text: string): void {
  for (let i = 0; i < text.length; i++) scratch[at++] = text.charCodeAt(i);
}

/** A non-negative integer below 2^31, in decimal. */
function putInteger(n: number): void {
  if (n >= 10) putInteger(Math.floor(n / 10));
  scratch[at++] = 48 + (n % 10);
}

/** fixed3(ms), written. */
function putMs(ms: number): void {
  const k = thousandths(ms);
  if (k === undefined) return put(ms.toFixed(3));
  const whole = Math.floor(k / 1000);
  const frac = k - whole * 1000;
  putInteger(whole);
  scratch[at++] = 46; // .
  scratch[at++] = 48 + Math.floor(frac / 100);
  scratch[at++] = 48 + (Math.floor(frac / 10) % 10);
  scratch[at++] = 48 + (frac % 10);
}

function part(name: string, ms: number | undefined): void {
  if (ms === undefined) return;
  if (at > 0) put(', ');
  put(name);
  putMs(ms);
}

/**
 * `Server-Timing: parse;dur=0.1, queue;dur=0.8, handoff;dur=0.05, run;dur=2.0, handback;dur=0.04,
 * infer;dur=2.1, serialise;dur=0.02, batch;desc="7/8"`: where the request's time went. infer
 * (the executors as the main thread sees them) holds handoff, run and handback; batch is rows /
 * rows after padding.
 */
export function serverTiming(s: RunStats): string {
  at = 0;
  part('parse;dur=', s.parseMs);
  part('queue;dur=', s.queueMs);
  part('handoff;dur=', s.handoffMs);
  part('run;dur=', s.computeMs);
  part('handback;dur=', s.handbackMs);
  part('infer;dur=', s.inferMs);
  part('serialise;dur=', s.serialiseMs);
  if (s.batchSize !== undefined) {
    if (at > 0) put(', ');
    put('batch;desc="');
    put(String(s.batchSize));
    put('/');
    put(String(s.paddedBatchSize ?? s.batchSize));
    put('"');
  }
  return scratch.toString('latin1', 0, at);
}

/**
 * `ms.toFixed(3)`'s thousandths, for the durations answers carry: 0 to 10^9 ms. They are the
 * product rounded unless it lies near a half (the product's own rounding error is under 10^-4
 * there): undefined then, and for anything negative or larger, which toFixed writes.
 */
function thousandths(ms: number): number | undefined {
  if (!(ms >= 0 && ms < 1e9)) return undefined;
  const k = Math.round(ms * 1000);
  const off = ms * 1000 - k;
  return off > 0.49 || off < -0.49 ? undefined : k;
}

/** `ms.toFixed(3)`, the same text, without toFixed's runtime call (about 0.2 µs each, seven per answer). */
export function fixed3(ms: number): string {
  const k = thousandths(ms);
  if (k === undefined) return ms.toFixed(3);
  const whole = Math.floor(k / 1000);
  const frac = k - whole * 1000;
  return whole + (frac < 10 ? '.00' : frac < 100 ? '.0' : '.') + frac;
}
