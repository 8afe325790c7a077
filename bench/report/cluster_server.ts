// N tfgate processes behind one port, as gunicorn runs N workers: node:cluster's primary
// accepts the connections and hands them round-robin to the workers, each a whole tfgate
// (its own event loop, executors and copy of the model). Prints `listening PORT` once every
// worker listens on the port (each listens only after loading its models).
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
let listening = 0;
for (let i = 0; i < workers; i++) {
  const worker = cluster.fork();
  // The primary hears of each worker's listen() once the shared handle is set up: from then
  // on connections reach that worker. A log line (e.g. the model loaded) could come earlier.
  worker.once('listening', () => {
    if (++listening === workers) process.stdout.write(`listening ${portArg}\n`);
  });
  worker.process.stderr!.resume();
  worker.process.stdout!.resume();
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
