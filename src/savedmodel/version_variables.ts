// A SavedModel version's checkpoint: `<version>/variables/variables.{index,data-*}`.
import path from 'node:path';
import { readTensorBundle, type TensorBundle } from './tensor_bundle/tensor_bundle_reader.js';
import { indexFileName } from './tensor_bundle/bundle_format.js';
import { versionPathExists } from './version_files.js';

/** The version's variables bundle (its files confined to the version folder), or null when it has none. */
export async function openVersionVariables(dir: string): Promise<TensorBundle | null> {
  const prefix = path.join(dir, 'variables', 'variables');
  if (!(await versionPathExists(indexFileName(prefix)))) return null;
  return readTensorBundle(prefix, dir);
}
