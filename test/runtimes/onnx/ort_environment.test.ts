// ONNX Runtime's telemetry uploader is off unless the operator chose otherwise.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onnxRuntimeEnvironment } from '../../../src/runtimes/onnx/ort_environment.js';

describe('ONNX Runtime environment', () => {
  it('turns the telemetry uploader off when the variable is unset', () => {
    assert.deepEqual(onnxRuntimeEnvironment({}), { ORT_DISABLE_TELEMETRY: '1' });
  });
  it("leaves the operator's own setting alone", () => {
    assert.deepEqual(onnxRuntimeEnvironment({ ORT_DISABLE_TELEMETRY: '0' }), {});
    assert.deepEqual(onnxRuntimeEnvironment({ ORT_DISABLE_TELEMETRY: '1' }), {});
  });
});
