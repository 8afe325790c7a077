// A request body read straight from Node's request (request_body.ts): whole once its declared
// bytes are in, in one chunk or several, and refused CANCELLED when the client goes mid-body.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Context } from 'hono';
import { readRequestBodyBytes } from '../../src/rest/request_body.js';

const reads: Array<Promise<Uint8Array>> = [];
const server = http.createServer((incoming, outgoing) => {
  const c = { req: { header: () => assert.fail('read from Node') }, env: { incoming, outgoing } } as unknown as Context;
  const read = readRequestBodyBytes(c, 1 << 20);
  reads.push(read);
  read.then(
    (body) => outgoing.end(String(body.length)),
    () => {},
  );
});
after(() => server.close());

/** Sends a request declaring 100 bytes, `parts` of its body one after the other, then ends or cuts it. */
async function send(parts: string[], cut: boolean): Promise<{ read: Promise<Uint8Array> }> {
  if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(socket, 'connect');
  const seen = reads.length;
  socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n');
  for (const part of parts) {
    socket.write(part);
    await new Promise((r) => setTimeout(r, 10));
  }
  while (reads.length === seen) await new Promise((r) => setImmediate(r));
  if (cut) socket.destroy();
  else socket.on('data', () => socket.end());
  return { read: reads[seen] };
}

describe('a request body read from Node', () => {
  it('whole once its declared bytes are in, in one chunk or several', async () => {
    for (const parts of [['a'.repeat(100)], ['b'.repeat(40), 'c'.repeat(60)]]) {
      const body = await (await send(parts, false)).read;
      assert.equal(Buffer.from(body).toString(), parts.join(''));
    }
  });

  it('a client gone mid-body is refused CANCELLED', async () => {
    await assert.rejects((await send(['d'.repeat(10)], true)).read, /the client closed the connection/);
  });
});
