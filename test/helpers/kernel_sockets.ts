// What the kernel holds for a local TCP port, read from /proc/net/tcp: lets a test know that
// requests it sent have arrived, even while the server has not read them (or is stopped).
import fs from 'node:fs';

const ESTABLISHED = '01';

/** Connections to 127.0.0.1:`port` with bytes received and not yet read by the server. */
export function connectionsWithUnreadData(port: number): number {
  const localPort = port.toString(16).toUpperCase().padStart(4, '0');
  let n = 0;
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue …
    const [, local, , state, queues] = line.trim().split(/\s+/);
    if (!local?.endsWith(`:${localPort}`) || state !== ESTABLISHED) continue;
    if (parseInt(queues.split(':')[1], 16) > 0) n++;
  }
  return n;
}
