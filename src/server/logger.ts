// tfgate's logs: one JSON object per line on stderr (pino), e.g.
//   {"level":30,"time":"2026-11-24T15:50:00.000Z","name":"tfgate","msg":"Successfully loaded servable version {name: m version: 1}","model":"m","version":1}
// Messages keep TF Serving's wording where it has one, so a line such as
// "Exporting HTTP/REST API at:HOST:PORT ..." can still be found by text.
import { pino, destination, stdTimeFunctions } from 'pino';

type LogLevel = 'info' | 'warn' | 'error';
export type Log = (msg: string, level?: LogLevel, fields?: Record<string, unknown>) => void;

export function createLog(): Log {
  // Synchronous writes: a line logged just before exit (signals, start-up failures) is not lost.
  const logger = pino({ name: 'tfgate', timestamp: stdTimeFunctions.isoTime }, destination({ fd: 2, sync: true }));
  return (msg, level = 'info', fields = {}) => logger[level](fields, msg);
}
