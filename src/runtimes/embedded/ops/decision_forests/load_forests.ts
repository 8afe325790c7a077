// Loads every TF-DF model a SavedModel's init op loads (resolve_forest_models.ts) into
// Yggdrasil's WASM engine, as TF runs SimpleMLLoadModelFromPath(WithHandle) when the version
// loads: a model that cannot be read fails the whole version, naming the op and the reason.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Code, ServingError, errorText } from '../../../../errors/status.js';
import type { ForestModels, ForestModelFiles } from '../../../../savedmodel/graph/decision_forests/resolve_forest_models.js';
import type { ForestBindings } from '../../../../savedmodel/graph/decision_forests/forest_rewrite.js';
import { YggdrasilForest } from './yggdrasil_forest.js';
import { readVersionFile } from '../../../../savedmodel/version_files.js';
import { NoFastEngine } from './yggdrasil_wasm.js';
import { addForest, releaseForest } from './forest_registry.js';

export interface LoadedForests {
  bindings: ForestBindings;
  /** Deletes the models from the engine (the version's dispose). */
  release(): void;
}

/** The files of the model's folder whose names start with its prefix (YDF reads <prefix>header.pb …). */
async function readModelFiles(files: ForestModelFiles): Promise<Map<string, Uint8Array>> {
  let entries;
  try {
    entries = await fs.readdir(files.dir, { withFileTypes: true });
  } catch (e) {
    throw new ServingError(
      Code.NOT_FOUND,
      `${files.dir}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : (e as Error).message}`,
    );
  }
  const out = new Map<string, Uint8Array>();
  for (const entry of entries) {
    // Read as every version file is (version_files.ts): never a FIFO, never past its size.
    if (entry.isFile() && entry.name.startsWith(files.filePrefix))
      out.set(entry.name, await readVersionFile(files.dir, path.join(files.dir, entry.name)));
  }
  return out;
}

export async function loadForests(models: ForestModels): Promise<LoadedForests> {
  const keys = new Map<string, string>();
  const release = () => {
    for (const key of keys.values()) releaseForest(key);
    keys.clear();
  };
  try {
    for (const [identity, files] of models.resolved()) {
      try {
        keys.set(identity, addForest(await YggdrasilForest.load(await readModelFiles(files), files.filePrefix)));
      } catch (e) {
        // Yggdrasil's own refusals ("Failed to open data_spec.pb") are kept; a JS fault is INTERNAL.
        const status = e instanceof ServingError ? e.toData() : { code: Code.DATA_LOSS, message: errorText(e) };
        if (e instanceof NoFastEngine) {
          throw new ServingError(
            Code.UNIMPLEMENTED,
            `${files.loadedBy}: none of the fast engines of Yggdrasil's WASM build runs the model in ${files.dir} (${status.message}); TF would run it on Yggdrasil's slow generic engine, which tfgate does not have`,
          );
        }
        const code = status.code === Code.NOT_FOUND || status.code === Code.UNIMPLEMENTED ? status.code : Code.DATA_LOSS;
        throw new ServingError(code, `${files.loadedBy} cannot load the Yggdrasil model in ${files.dir}: ${status.message}`);
      }
    }
  } catch (e) {
    release();
    throw e;
  }
  return { bindings: { models, keys }, release };
}
