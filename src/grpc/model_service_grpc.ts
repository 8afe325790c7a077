// tensorflow.serving.ModelService over gRPC: GetModelStatus, and HandleReloadConfigRequest,
// which applies a new ModelServerConfig as a changed --model_config_file would.
import type { sendUnaryData, ServerUnaryCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { Code, invalidArgument, unimplemented } from '../errors/status.js';
import type { ModelVersionStatus } from '../core/aspired_versions_manager.js';
import type { ModelSpec } from '../services/servable_version.js';
import type { ProtoMessage } from '../config/schema.js';
import { grpcError } from './grpc_status.js';
import { modelSpecFrom, type ModelSpecMessage } from './grpc_messages.js';

export interface ModelServiceGrpcDeps {
  status(spec: ModelSpec): ModelVersionStatus[];
  /** Applies a ModelServerConfig (fields snake_case, as a text proto parses); resolves once the new models loaded. */
  reloadConfig(raw: ProtoMessage): Promise<void>;
  /** Set: HandleReloadConfigRequest is turned off and answers UNIMPLEMENTED with this text. */
  reloadConfigDisabled?: string;
}

interface ModelConfigMessage {
  name?: string;
  basePath?: string;
  modelType?: string;
  modelPlatform?: string;
  modelVersionPolicy?: { latest?: { numVersions?: number }; all?: object; specific?: { versions?: (string | number)[] } };
  versionLabels?: Record<string, string | number>;
}

interface ReloadConfigRequestMessage {
  config?: { modelConfigList?: { config?: ModelConfigMessage[] }; customModelConfig?: unknown };
}

/** The decoded message → the field layout the config checks read (int64s as numbers). */
function rawModelConfig(m: ModelConfigMessage): ProtoMessage {
  const raw: ProtoMessage = { name: m.name ?? '', base_path: m.basePath ?? '' };
  if (m.modelPlatform) raw.model_platform = m.modelPlatform;
  if (m.modelType) raw.model_type = m.modelType;
  const p = m.modelVersionPolicy;
  if (p) {
    if (p.specific) raw.model_version_policy = { specific: { versions: (p.specific.versions ?? []).map(Number) } };
    else if (p.all) raw.model_version_policy = { all: {} };
    else if (p.latest) raw.model_version_policy = { latest: { num_versions: p.latest.numVersions ?? 0 } };
    else raw.model_version_policy = {};
  }
  if (m.versionLabels) raw.version_labels = Object.fromEntries(Object.entries(m.versionLabels).map(([k, v]) => [k, Number(v)]));
  return raw;
}

export function modelServiceImplementation(deps: ModelServiceGrpcDeps): UntypedServiceImplementation {
  return {
    GetModelStatus(call: ServerUnaryCall<{ modelSpec?: ModelSpecMessage }, object>, callback: sendUnaryData<object>) {
      try {
        const { spec } = modelSpecFrom(call.request.modelSpec);
        const modelVersionStatus = deps.status(spec).map((s) => ({
          version: s.version,
          state: s.state,
          status: { errorCode: Code[s.status.code], ...(s.status.message && { errorMessage: s.status.message }) },
        }));
        callback(null, { modelVersionStatus });
      } catch (e) {
        callback(grpcError(e));
      }
    },

    HandleReloadConfigRequest(call: ServerUnaryCall<ReloadConfigRequestMessage, object>, callback: sendUnaryData<object>) {
      if (deps.reloadConfigDisabled) {
        callback(grpcError(unimplemented(deps.reloadConfigDisabled)));
        return;
      }
      const config = call.request.config;
      // TF Serving's model_service_impl.cc: only a model_config_list can be applied.
      if (!config?.modelConfigList) {
        callback(
          grpcError(
            invalidArgument(
              'ServerModelConfig type not supported by HandleReloadConfigRequest. Only ModelConfigList is currently supported',
            ),
          ),
        );
        return;
      }
      const raw: ProtoMessage = { model_config_list: { config: (config.modelConfigList.config ?? []).map(rawModelConfig) } };
      deps.reloadConfig(raw).then(
        () => callback(null, { status: { errorCode: 'OK' } }),
        (e: unknown) => callback(grpcError(e)),
      );
    },
  };
}
