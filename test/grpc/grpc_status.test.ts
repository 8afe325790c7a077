// A status message goes in the grpc-message trailer: past MAX_MESSAGE_BYTES (percent-encoded,
// as grpc-js sends it) it is cut and says how much was left out, so that every peer takes the
// trailer and the call gets its status.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { grpcError, MAX_MESSAGE_BYTES, trailerMessage } from '../../src/grpc/grpc_status.js';
import { invalidArgument } from '../../src/errors/status.js';
import * as MSG from '../../src/errors/messages.js';

describe('gRPC status messages fit the trailer', () => {
  it('a short message is sent whole', () => {
    assert.equal(trailerMessage('Expects arg[0] to be float but string is provided'), 'Expects arg[0] to be float but string is provided');
  });

  it("20 000 unknown keys: TF Serving's message, its beginning kept, cut under the limit with what was left out", () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `unknown_${i}`).sort();
    const full = MSG.inputSizeMismatch(keys, ['x'], keys, ['x']);
    const sent = grpcError(invalidArgument(full));
    assert.equal(sent.code, 3);
    const details = sent.details!;
    assert.ok(encodeURI(details).length <= MAX_MESSAGE_BYTES, `${encodeURI(details).length} bytes`);
    const m = /^(.*)… \((\d+) more characters not sent\)$/s.exec(details);
    assert.ok(m, details.slice(-80));
    assert.ok(full.startsWith(m[1]));
    assert.equal(m[1].length + Number(m[2]), full.length);
  });

  it('characters that percent-encode to 3 bytes each count as 3; a lone surrogate becomes U+FFFD instead of failing encodeURI', () => {
    const details = trailerMessage('é'.repeat(5000));
    assert.ok(encodeURI(details).length <= MAX_MESSAGE_BYTES);
    assert.ok(details.length < 2000);
    assert.equal(trailerMessage('bad key \ud800 here'), 'bad key \ufffd here');
    assert.doesNotThrow(() => encodeURI(trailerMessage('\udc00'.repeat(3000))));
  });
});
