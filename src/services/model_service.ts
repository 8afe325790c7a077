// TF Serving's ModelService, shared by REST and gRPC: a model's version states
// (GetModelStatus) and the signatures of the version a spec resolves to (GetModelMetadata).
import type { SignatureDefObject } from '../savedmodel/saved_model_reader.js';
import type { ModelVersionStatus } from '../core/aspired_versions_manager.js';
import type { ModelSpec, VersionSource } from './servable_version.js';

export interface VersionStates {
  /** NOT_FOUND texts as TF Serving's; a label is not consulted (see the manager). */
  status(spec: ModelSpec): ModelVersionStatus[];
}

export class ModelService {
  constructor(private readonly versions: VersionSource & VersionStates) {}

  status(spec: ModelSpec): ModelVersionStatus[] {
    return this.versions.status(spec);
  }

  /** The version the spec resolves to now and its SignatureDefs as stored; held only while read. */
  signatureDefs(spec: ModelSpec): { version: number; defs: Record<string, SignatureDefObject> } {
    const handle = this.versions.acquire(spec);
    try {
      return { version: handle.version, defs: handle.servable.description.signatureDefs };
    } finally {
      handle.release();
    }
  }
}
