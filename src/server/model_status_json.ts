// GetModelStatus in TF Serving's REST JSON shape.
import { Code } from '../errors/status.js';
import type { ModelVersionStatus } from '../core/aspired_versions_manager.js';

export function modelStatusJson(statuses: ModelVersionStatus[]) {
  return {
    model_version_status: statuses.map((s) => ({
      version: String(s.version),
      state: s.state,
      status: { error_code: Code[s.status.code], error_message: s.status.message },
    })),
  };
}
