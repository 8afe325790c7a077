// What every runtime does first with a SavedModel version folder, before its graphs: check the
// folder holds only regular files (version_files.ts), read its MetaGraphDef and open its
// variables, and derive the load's memory bound from its size (load_bounds.ts). And what it
// does last: check every tensor of the checkpoint, read or not.
import { ServingError } from '../errors/status.js';
import { loadMemoryBound, type LoadMemoryBound } from './load_bounds.js';
import { readMetaGraph, type MetaGraphObject } from './saved_model_reader.js';
import type { TensorBundle } from './tensor_bundle/tensor_bundle_reader.js';
import { versionInventory } from './version_files.js';
import { openVersionVariables } from './version_variables.js';

export interface OpenedVersion {
  metaGraph: MetaGraphObject;
  variables: TensorBundle | null;
  /** Bytes of the version's files on disk. */
  sizeBytes: number;
  memoryBound: LoadMemoryBound;
}

export async function openSavedModelVersion(dir: string, tags: readonly string[], memoryFloorMb?: number): Promise<OpenedVersion> {
  const { bytes } = await versionInventory(dir);
  const metaGraph = await readMetaGraph(dir, tags);
  const variables = await openVersionVariables(dir);
  return { metaGraph, variables, sizeBytes: bytes, memoryBound: loadMemoryBound(bytes, memoryFloorMb) };
}

/**
 * TF's RestoreV2 restores every tensor of the checkpoint, so a corrupt one fails the load
 * (DATA_LOSS) even when no signature reads it: check the checksums of those not read yet.
 */
export function verifyVariables(dir: string, variables: TensorBundle | null): void {
  try {
    variables?.verifyChecksums();
  } catch (e) {
    if (e instanceof ServingError) throw new ServingError(e.code, `${dir}: ${e.message}`);
    throw e;
  }
}
