// Finds model versions on disk: numeric subfolders of a base path (`00000123` is version
// 123); anything else — files, `variables/`, a stray saved_model.pb — is ignored, as TF
// Serving does. file_system_source.ts polls it every file_system_poll_wait_seconds.
import fs from 'node:fs/promises';
import path from 'node:path';

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
