// Finds model versions on disk: numeric subfolders of a base path (`00000123` is version
// 123); anything else — files, `variables/`, a stray saved_model.pb — is ignored, as TF
// Serving does. One addition: a base path with no version folder but a saved_model.pb of
// its own is version 1 (KServe's layout, see unversioned_saved_model.ts).
// file_system_source.ts polls it every file_system_poll_wait_seconds.
import fs from 'node:fs/promises';
import path from 'node:path';
import { holdsSavedModel, UNVERSIONED_SAVED_MODEL_VERSION } from './unversioned_saved_model.js';

export interface VersionOnDisk {
  version: number;
  path: string;
}

/**
 * Numeric version folders under basePath. Any error reading it (ENOENT of the base path,
 * EMFILE, EACCES, EIO…) is thrown, never taken for "no versions": the caller keeps what it
 * serves, as TF Serving's source emits no aspired-versions list when the path can't be read.
 */
export async function listVersions(basePath: string): Promise<VersionOnDisk[]> {
  const entries = await fs.readdir(basePath, { withFileTypes: true });
  const out = new Map<number, VersionOnDisk>();
  for (const e of entries) {
    if (!/^\d+$/.test(e.name)) continue;
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) isDir = await isDirectoryBehindLink(path.join(basePath, e.name));
    if (!isDir) continue;
    const version = Number(e.name);
    if (!Number.isSafeInteger(version)) continue;
    // Two spellings of one version (1 and 001): keep the first seen, as TF Serving keeps one.
    if (!out.has(version)) out.set(version, { version, path: path.join(basePath, e.name) });
  }
  if (!out.size && (await holdsSavedModel(basePath))) return [{ version: UNVERSIONED_SAVED_MODEL_VERSION, path: basePath }];
  return [...out.values()].sort((a, b) => a.version - b.version);
}

/** A dangling link is no version; any other stat error (EMFILE, EACCES…) is the poll's error. */
async function isDirectoryBehindLink(link: string): Promise<boolean> {
  try {
    return (await fs.stat(link)).isDirectory();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}
