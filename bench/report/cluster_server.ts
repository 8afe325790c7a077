// N tfgate processes behind one port, as gunicorn runs N workers: node:cluster's primary
// accepts the connections and hands them round-robin to the workers, each a whole tfgate
// (its own event loop, executors and copy of the model). Prints `listening PORT` once every
// worker listens on the port and has logged that its first loads settled (tfgate opens its
// ports while models load).
//   node dist/bench/report/cluster_server.js <workers> <port> <tfgate flags…>
import cluster from 'node:cluster';
import { TFGATE_BIN } from './processes.js';

const [workersArg, portArg, ...tfgateArgs] = process.argv.slice(2);
const workers = Number(workersArg);
if (!(workers >= 1) || !(Number(portArg) > 0)) {
  process.stderr.write('usage: cluster_server <workers> <port> <tfgate flags…>\n');
  process.exit(2);
}

cluster.setupPrimary({ exec: TFGATE_BIN, args: [...tfgateArgs, `--rest_api_port=${portArg}`], silent: true });
let ready = 0;
const SETTLED = /"event":"initial_loads_settled"/;
for (let i = 0; i < workers; i++) {
  const worker = cluster.fork();
  // The primary hears of each worker's listen() once the shared handle is set up: from then
  // on connections reach that worker. Its models are loaded once it logs that its first loads
  // settled; a worker counts as ready when both happened, in either order.
  let steps = 0;
  const step = () => {
    if (++steps === 2 && ++ready === workers) process.stdout.write(`listening ${portArg}\n`);
  };
  worker.once('listening', step);
  let settled = false;
  let tail = '';
  for (const stream of [worker.process.stderr!, worker.process.stdout!]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      if (settled) return;
      tail = (tail + chunk).slice(-4096);
      if (SETTLED.test(tail)) {
        settled = true;
        step();
      }
    });
  }
  worker.on('exit', (code) => {
    if (!stopping) {
      process.stderr.write(`worker ${i} exited ${code}\n`);
      process.exit(1);
    }
  });
}

let stopping = false;
// Workers drain and exit on SIGTERM (tfgate's shutdown); the primary leaves after the last one.
const stop = () => {
  stopping = true;
  const running = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
  let left = running.length;
  if (!left) process.exit(0);
  for (const w of running) {
    w.once('exit', () => --left === 0 && process.exit(0));
    w.process.kill('SIGTERM');
  }
  setTimeout(() => process.exit(0), 10_000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
