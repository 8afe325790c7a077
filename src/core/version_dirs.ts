// Finds model versions under a base path: numeric subfolders (`00000123` is version 123);
// anything else — files, `variables/`, a stray saved_model.pb — is ignored, as TF Serving
// does. One addition: a base path with no version folder but a saved_model.pb of its own is
// version 1 (KServe's layout, see unversioned_saved_model.ts). The same rules hold wherever
// the base path lives (a local folder, s3://, gs://): the storage only lists children.
// file_system_source.ts polls it every file_system_poll_wait_seconds.
import path from 'node:path';
import { UNVERSIONED_SAVED_MODEL_VERSION } from './unversioned_saved_model.js';
import { isObjectStoreUri } from '../config/storage_uri.js';
import { localStorage } from '../storage/local_storage.js';
import type { Storage } from '../storage/storage.js';

export interface VersionOnDisk {
  version: number;
  /** The version's folder: a local path, or a URI in the base path's object store. */
  path: string;
}

/** `name` under `basePath`: '/'-joined on an object store, path.join on disk. */
function child(basePath: string, name: string): string {
  return isObjectStoreUri(basePath) ? `${basePath.replace(/\/+$/, '')}/${name}` : path.join(basePath, name);
}

/**
 * Numeric version folders under basePath. Any error listing it (a missing base path,
 * EMFILE, EACCES, a missing bucket or credential…) is thrown, never taken for "no
 * versions": the caller keeps what it serves, as TF Serving's source emits no
 * aspired-versions list when the path can't be read.
 */
export async function listVersions(basePath: string, storage: Pick<Storage, 'list'> = localStorage): Promise<VersionOnDisk[]> {
  const { folders, files } = await storage.list(basePath);
  const out = new Map<number, VersionOnDisk>();
  for (const name of folders) {
    if (!/^\d+$/.test(name)) continue;
    const version = Number(name);
    if (!Number.isSafeInteger(version)) continue;
    // Two spellings of one version (1 and 001): keep the first seen, as TF Serving keeps one.
    if (!out.has(version)) out.set(version, { version, path: child(basePath, name) });
  }
  if (!out.size && files.includes('saved_model.pb')) return [{ version: UNVERSIONED_SAVED_MODEL_VERSION, path: basePath }];
  return [...out.values()].sort((a, b) => a.version - b.version);
}
