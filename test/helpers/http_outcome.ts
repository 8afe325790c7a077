// One HTTP request and how it ended, told apart the way a client sees it during a shutdown:
// answered in full, refused before any byte of an answer (connection refused or closed before
// the request was read: the client may retry), or cut after the answer began (a real failure).
import http from 'node:http';

export type Outcome =
  | { kind: 'answered'; status: number; body: Buffer; connectionClose: boolean }
  | { kind: 'refused'; why: string }
  | { kind: 'cut'; why: string };

export interface RequestSpec {
  port: number;
  method: string;
  path: string;
  body?: string | Buffer;
  agent?: http.Agent | false;
  /** Called with the response before its body is read: a test may pause() it to hold the body back. */
  onResponse?: (res: http.IncomingMessage) => void;
}

export function requestOutcome(spec: RequestSpec): Promise<Outcome> {
  return new Promise((resolve) => {
    const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
    let answered = false;
    const req = http.request(
      {
        host: '127.0.0.1',
        port: spec.port,
        method: spec.method,
        path: spec.path,
        agent: spec.agent,
        headers: body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {},
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (!res.complete) return resolve({ kind: 'cut', why: `body ended early after ${Buffer.concat(chunks).length} bytes` });
          resolve({
            kind: 'answered',
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks),
            connectionClose: /close/i.test(String(res.headers.connection ?? '')),
          });
        });
        res.on('aborted', () => resolve({ kind: 'cut', why: `aborted after ${Buffer.concat(chunks).length} bytes` }));
        res.on('error', (e) =>
          resolve({
            kind: 'cut',
            why: `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message} after ${Buffer.concat(chunks).length} bytes`,
          }),
        );
        spec.onResponse?.(res);
      },
    );
    req.on('error', (e) => {
      const why = `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}`;
      resolve(answered ? { kind: 'cut', why } : { kind: 'refused', why });
    });
    req.end(body);
  });
}

/** Polls `ready` until it holds; throws with `what` past the deadline (a bound, not a measurement). */
export async function until(ready: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
