// Admission by bytes: claims grow against one budget, are refused (taking nothing) past it,
// and give everything back once released.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBudget, MemoryBudgetExceeded } from '../../src/services/memory_budget.js';
import { Code } from '../../src/errors/status.js';
import { httpStatusOf } from '../../src/rest/http_status.js';

describe('MemoryBudget', () => {
  it('admits claims up to the limit, refuses past it, and frees on release', () => {
    const budget = new MemoryBudget(100);
    const a = budget.claim();
    const b = budget.claim();
    a.add(60);
    b.add(30);
    assert.equal(budget.inFlightBytes, 90);
    assert.throws(
      () => b.add(20),
      (e: unknown) =>
        e instanceof MemoryBudgetExceeded && e.code === Code.RESOURCE_EXHAUSTED && /--max_inflight_request_bytes/.test(e.message),
    );
    assert.equal(b.bytes, 30, 'a refused add takes nothing');
    a.release();
    a.release();
    assert.equal(budget.inFlightBytes, 30, 'released once');
    b.add(70);
    b.release();
    assert.equal(budget.inFlightBytes, 0);
  });
  it('is answered 503 over REST (the server is busy), RESOURCE_EXHAUSTED over gRPC', () => {
    assert.equal(httpStatusOf(new MemoryBudgetExceeded(1, 2, 3)), 503);
  });
});
