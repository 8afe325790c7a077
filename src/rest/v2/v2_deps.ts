// What the Open Inference Protocol's routes need from the server: a subset of the REST app's
// dependencies (RestDeps satisfies it as it is), so that both APIs share the same services,
// limits, memory budget and metrics.
import type { PredictionService } from '../../services/prediction_service.js';
import type { ModelSpec } from '../../services/servable_version.js';
import type { MemoryBudget } from '../../services/memory_budget.js';
import type { Metrics } from '../../monitoring/metrics.js';

export interface V2Deps {
  prediction: PredictionService;
  /** GetModelStatus as TF Serving's JSON object (`model_version_status`); NOT_FOUND for an unknown model. */
  modelStatus(spec: ModelSpec): unknown;
  /** tfgate's status page (`models: [{name, versions}]`): which models the server ready probe waits for. */
  serverStatus?: () => unknown;
  limits: { maxBodyBytes: number; jsonMaxDepth: number; jsonMaxElements: number };
  budget?: MemoryBudget;
  timeoutMs: number;
  metrics: Metrics;
}
