// TF Serving's gRPC messages as plain objects (camelCase, as service_definitions.ts decodes
// them), and the conversions between them and tfgate's service layer.
import { invalidArgument } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import type { ModelSpec } from '../services/servable_version.js';

export interface ModelSpecMessage {
  name?: string;
  version?: { value?: string | number };
  versionLabel?: string;
  signatureName?: string;
}

/** ModelSpec → what the version manager resolves; TF Serving's "Missing ModelSpec" when absent. */
export function modelSpecFrom(m: ModelSpecMessage | undefined | null): { spec: ModelSpec; signatureName?: string } {
  if (!m) throw invalidArgument(MSG.MISSING_MODEL_SPEC);
  const spec: ModelSpec = { name: m.name ?? '' };
  if (m.version) spec.version = Number(m.version.value ?? 0);
  else if (m.versionLabel) spec.label = m.versionLabel;
  return { spec, signatureName: m.signatureName || undefined };
}

/** The ModelSpec a response echoes: the model, the version that served, the signature used. */
export function modelSpecMessage(name: string, version: number, signatureName: string): ModelSpecMessage {
  return { name, version: { value: version }, signatureName };
}

export interface GetModelMetadataRequestMessage {
  modelSpec?: ModelSpecMessage;
  metadataField?: string[];
}
