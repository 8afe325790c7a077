// What the REST envelope reads of a request. Hono's Context has it all; the direct dispatch of a
// POST under /v1/ (rest_app.ts) passes a lighter stand-in that makes the Context only when
// something asks for it (an error answer, Hono's request view): a :predict answered 200 never does.
import type { Context } from 'hono';

export interface RestExchange {
  /** @hono/node-server's bindings, `{ incoming, outgoing }` (Node's request and response); other servers' own. */
  readonly env: unknown;
  /** Hono's request view (made on first use). */
  readonly req: Context['req'];
}
