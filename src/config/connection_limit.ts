// The default of --rest_max_connections: each connection holds a file descriptor, and so do
// model files, executor threads' pipes, gRPC and logs. Past the process's open-file limit
// (`ulimit -n`) accept() fails and, worse, so does opening a model version. The default keeps
// a reserve of descriptors for that work.
import { readFileSync } from 'node:fs';

/** Descriptors kept for the server's own work. */
const FD_RESERVE = 256;
const MIN_CONNECTIONS = 16;
/** Past this, one event loop answers too slowly for more connections to help. */
const MAX_DEFAULT_CONNECTIONS = 16384;
/** The usual soft limit, assumed where /proc/self/limits cannot be read (not Linux). */
const ASSUMED_SOFT_LIMIT = 1024;

/** The soft "Max open files" of /proc/self/limits (Node has no getrlimit); Infinity when unlimited, undefined when unreadable. */
export function openFileSoftLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const m = /^Max open files\s+(\S+)/m.exec(text);
  if (!m) return undefined;
  return m[1] === 'unlimited' ? Infinity : Number(m[1]) || undefined;
}

/** ulimit -n minus the reserve, within [MIN_CONNECTIONS, MAX_DEFAULT_CONNECTIONS]. */
export function defaultMaxConnections(softLimit: number | undefined): number {
  const limit = softLimit ?? ASSUMED_SOFT_LIMIT;
  return Math.min(MAX_DEFAULT_CONNECTIONS, Math.max(MIN_CONNECTIONS, limit - FD_RESERVE));
}
