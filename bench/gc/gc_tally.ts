// Preloaded into a server by bench:gc (`node --import <this file> …`): tallies the main thread's
// garbage collections (Node's `gc` performance entries: kind and pause) and writes the tally to
// stderr when the process gets SIGUSR2. `--trace-gc` cannot serve here: its lines go through C's
// stdio, which a pipe buffers until thousands of bytes have gathered.
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  const tally = { scavenges: 0, scavengeMs: 0, markCompacts: 0, markCompactMs: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        tally.scavenges++;
        tally.scavengeMs += e.duration;
      } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        tally.markCompacts++;
        tally.markCompactMs += e.duration;
      }
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('SIGUSR2', () => process.stderr.write(`gc-tally ${JSON.stringify(tally)}\n`));
}
