// Server and model metadata ("Server Metadata" / "Model Metadata", inference_rest.md).
// A model's inputs and outputs are its serving signature's (serving_default, the signature
// :predict runs when none is named), by their keys — the names an inference request uses —
// with -1 for a dimension of unknown size. A tensor of unknown rank has no shape to give;
// it is reported as [-1] (any number of elements), as other KServe servers do.
import type { SignatureSpec, TensorSpec } from '../../savedmodel/signature_spec.js';
import { datatypeOfTf } from './datatypes.js';

const SERVER_NAME = 'tfgate';
/** The protocol extensions tfgate implements, by the names Triton reports them under. */
const EXTENSIONS = ['binary_tensor_data'] as const;
/** A model's platform ("Platforms" in the spec): what tfgate serves are SavedModels. */
const PLATFORM = 'tensorflow_savedmodel';

export interface ServerMetadata {
  name: string;
  version: string;
  extensions: string[];
}

interface MetadataTensor {
  name: string;
  datatype: string;
  shape: number[];
}

export interface ModelMetadata {
  name: string;
  versions: string[];
  platform: string;
  inputs: MetadataTensor[];
  outputs: MetadataTensor[];
}

export function serverMetadata(version: string): ServerMetadata {
  return { name: SERVER_NAME, version, extensions: [...EXTENSIONS] };
}

function metadataTensors(specs: Readonly<Record<string, TensorSpec>>): MetadataTensor[] {
  return Object.keys(specs)
    .sort()
    .map((name) => {
      const spec = specs[name];
      return { name, datatype: datatypeOfTf(spec.feedDtype ?? spec.dtype), shape: spec.shape ?? [-1] };
    });
}

/**
 * `versions`: those that may be requested now (AVAILABLE), as strings, newest first.
 * `signature`: undefined when the model has no serving_default; inputs and outputs are empty then.
 */
export function modelMetadata(name: string, versions: number[], signature: SignatureSpec | undefined): ModelMetadata {
  return {
    name,
    versions: versions.map(String),
    platform: PLATFORM,
    inputs: signature ? metadataTensors(signature.inputs) : [],
    outputs: signature ? metadataTensors(signature.outputs) : [],
  };
}
