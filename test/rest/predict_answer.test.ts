// An answer's own bytes are freed once Node has handed the response to the socket, never before
// (a write still pending reads them), and never on a close that came first.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Context } from 'hono';
import { releaseWhenSent } from '../../src/rest/predict_answer.js';

const withOutgoing = (outgoing: EventEmitter) => ({ env: { outgoing } }) as unknown as Context;

describe('releaseWhenSent', () => {
  it("frees the body's buffer on 'finish'", () => {
    const outgoing = new EventEmitter();
    const body = new Uint8Array(4096);
    releaseWhenSent(withOutgoing(outgoing), body);
    assert.equal(body.byteLength, 4096, 'kept until sent');
    outgoing.emit('finish');
    assert.equal(body.byteLength, 0, 'freed once sent');
  });

  it("keeps it on 'close' without 'finish', and without Node's response", () => {
    const outgoing = new EventEmitter();
    const body = new Uint8Array(4096);
    releaseWhenSent(withOutgoing(outgoing), body);
    outgoing.emit('close');
    assert.equal(body.byteLength, 4096);
    const inProcess = new Uint8Array(16);
    releaseWhenSent({ env: undefined } as unknown as Context, inProcess);
    assert.equal(inProcess.byteLength, 16);
  });
});
