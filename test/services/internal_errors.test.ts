// No JS error text ever reaches a client: an error that is not a ServingError (a TypeError
// in tfgate's code or an engine's) is INTERNAL with a generic message and an id, its details
// logged once under that id; over REST it is a 500 with that message, over gRPC code 13.
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { Code, ServingError, errorText, internalErrorMessage, setInternalErrorReporter, toStatusData } from '../../src/errors/status.js';
import { grpcError } from '../../src/grpc/grpc_status.js';
import { createRestApp, type RestDeps } from '../../src/rest/rest_app.js';
import { PredictionService } from '../../src/services/prediction_service.js';
import { Metrics } from '../../src/monitoring/metrics.js';
import type { ModelSpec } from '../../src/services/servable_version.js';
import { engineLogLine } from '../../src/runtimes/engine_chatter.js';
import { FakeVersions } from '../helpers/fake_versions.js';

const reported: Array<[string, unknown]> = [];
const collect = (id: string, e: unknown) => reported.push([id, e]);

describe('internal errors at the service boundary', () => {
  afterEach(() => {
    reported.length = 0;
    setInternalErrorReporter((id, e) => console.error(`internal error ${id}:`, e));
  });

  it('a TypeError becomes INTERNAL with an id; its text is logged once, never returned', () => {
    setInternalErrorReporter(collect);
    const e = new TypeError("Cannot read properties of undefined (reading 'dispose')");
    const first = toStatusData(e);
    const again = toStatusData(e);
    assert.equal(first.code, Code.INTERNAL);
    assert.doesNotMatch(first.message, /Cannot read|dispose/);
    const id = /^Internal error ([0-9a-f]{8}) in tfgate/.exec(first.message)?.[1];
    assert.ok(id, first.message);
    assert.equal(first.message, internalErrorMessage(id));
    assert.deepEqual(again, first);
    assert.deepEqual(reported, [[id, e]]);
    assert.equal(grpcError(e).code, 13);
    // A ServingError keeps its code and words; a library's own Error keeps its text for a load's refusal.
    assert.deepEqual(toStatusData(new ServingError(Code.INVALID_ARGUMENT, 'bad')), { code: Code.INVALID_ARGUMENT, message: 'bad' });
    assert.equal(errorText(new Error('ONNX Runtime: no kernel for Foo')), 'ONNX Runtime: no kernel for Foo');
    assert.match(errorText(new RangeError('Maximum call stack size exceeded')), /^Internal error [0-9a-f]{8}/);
  });

  it('REST: a run that throws a TypeError answers 500 with the generic message', async () => {
    setInternalErrorReporter(collect);
    const versions = new FakeVersions({
      hp2: {
        run: async () => {
          throw new TypeError('tfName.endsWith is not a function');
        },
      },
    });
    const deps: RestDeps = {
      prediction: new PredictionService(versions),
      modelStatus: (spec: ModelSpec) => ({ status_of: spec }),
      modelMetadata: (spec: ModelSpec) => ({ metadata_of: spec }),
      limits: { maxBodyBytes: 1 << 20, jsonMaxDepth: 64, jsonMaxElements: 10_000 },
      timeoutMs: 0,
      enableCors: false,
      metrics: new Metrics(),
    };
    const res = await createRestApp(deps).request('/v1/models/hp2:predict', {
      method: 'POST',
      body: '{"instances": [1.0]}',
      headers: { 'content-type': 'application/json' },
    });
    const text = await res.text();
    assert.equal(res.status, 500);
    assert.doesNotMatch(text, /endsWith|not a function/);
    assert.match(text, /Internal error [0-9a-f]{8} in tfgate; the server log has its details/);
    assert.equal(reported.length, 1);
    assert.match(String(reported[0][1]), /tfName\.endsWith is not a function/);
  });

  it("an engine's console output becomes a JSON log line, colours stripped", () => {
    const line = engineLogLine('warn', ['\u001b[1;31mXNN status %s is not successful\u001b[m', 'xnn_create'], 'executor');
    const parsed = JSON.parse(line) as { level: number; msg: string; source: string; name: string };
    assert.deepEqual(
      { level: parsed.level, msg: parsed.msg, source: parsed.source, name: parsed.name },
      { level: 40, msg: 'XNN status xnn_create is not successful', source: 'executor', name: 'tfgate' },
    );
    assert.ok(line.endsWith('\n'));
  });
});
