// bench:gc's in-server tally: the main thread's scavenges, written on SIGUSR2; a worker thread's
// collections are not the event loop's and stay out of it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const TALLY = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bench/gc/gc_tally.js')).href;

/** Runs `script` with the tally preloaded; once it prints `ready`, asks for the tally. */
function tallyAfter(script: string): Promise<{ scavenges: number; markCompacts: number }> {
  const child = spawn(process.execPath, [`--import=${TALLY}`, '--max-semi-space-size=1', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      if (String(d).includes('ready')) child.kill('SIGUSR2');
    });
    child.stderr.on('data', (d: Buffer) => {
      err += String(d);
      const m = /gc-tally (.*)\n/.exec(err);
      if (!m) return;
      child.kill();
      resolve(JSON.parse(m[1]) as { scavenges: number; markCompacts: number });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} without a tally: ${err}`)));
  });
}

// ~100 MB of short-lived objects through a 1 MiB semi-space: at least 64 scavenges wherever it runs
// (each object stored, so that no optimisation can leave it unallocated).
const GARBAGE = 'const keep = []; for (let i = 0; i < 2e6; i++) keep[i & 1023] = { i, a: [i, i] };';
// Gc entries reach the observer after the collection, on the event loop: let it turn before `ready`.
const READY = 'setTimeout(() => console.log("ready"), 50); setInterval(() => {}, 1000);';

describe('bench:gc tally (bench/gc/gc_tally.ts)', () => {
  it("counts the main thread's scavenges and only those", async () => {
    const main = await tallyAfter(`${GARBAGE} ${READY}`);
    assert.ok(main.scavenges >= 64, `main thread: ${JSON.stringify(main)}`);
    const worker = await tallyAfter(
      `import { Worker } from 'node:worker_threads';
       new Worker(${JSON.stringify(GARBAGE)}, { eval: true }).once('exit', () => { ${READY} });`,
    );
    assert.ok(worker.scavenges < 64, `a worker's garbage: ${JSON.stringify(worker)}`);
  });
});
