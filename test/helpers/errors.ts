// assert.rejects / assert.throws matcher for tfgate's ServingError: the code and the message.
import assert from 'node:assert/strict';
import { Code, ServingError } from '../../src/errors/status.js';

export function isError(code: Code, pattern: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof ServingError, `not a ServingError: ${e}`);
    assert.equal(Code[e.code], Code[code], e.message);
    assert.match(e.message, pattern);
    return true;
  };
}
