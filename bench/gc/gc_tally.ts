// Preloaded into a server by bench:gc (`node --import <this file> …`): tallies the main thread's
// garbage collections (Node's `gc` performance entries: kind and pause) and the bytes it has
// allocated, and writes the tally to stderr when the process gets SIGUSR2. `--trace-gc` cannot
// serve here: its lines go through C's stdio, which a pipe buffers until thousands of bytes have
// gathered.
// Bytes allocated: V8 keeps no running total, but every collection's heap use before it, less
// the use after the one before, is what was allocated in between (v8.GCProfiler gives both);
// the use now, less the use after the last collection, is what came since.
import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';

interface GcStatistics {
  statistics: { beforeGC: { heapStatistics: { usedHeapSize: number } }; afterGC: { heapStatistics: { usedHeapSize: number } } }[];
}

if (isMainThread) {
  const tally = { scavenges: 0, scavengeMs: 0, markCompacts: 0, markCompactMs: 0, allocatedBytes: 0 };
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
  let profiler = new v8.GCProfiler();
  profiler.start();
  let allocated = 0;
  let usedAfterLast = v8.getHeapStatistics().used_heap_size;
  process.on('SIGUSR2', () => {
    const data = profiler.stop() as unknown as GcStatistics;
    profiler = new v8.GCProfiler();
    profiler.start();
    for (const gc of data.statistics) {
      allocated += gc.beforeGC.heapStatistics.usedHeapSize - usedAfterLast;
      usedAfterLast = gc.afterGC.heapStatistics.usedHeapSize;
    }
    tally.allocatedBytes = allocated + (v8.getHeapStatistics().used_heap_size - usedAfterLast);
    process.stderr.write(`gc-tally ${JSON.stringify(tally)}\n`);
  });
}
