// Finds model versions on disk: numeric subfolders of a base path (`00000123` is version
// 123); anything else — files, `variables/`, a stray saved_model.pb — is ignored, as TF
// Serving does. Polled every file_system_poll_wait_seconds by the caller's timer.
import fs from 'node:fs/promises';
import path from 'node:path';

export interface VersionOnDisk {
  version: number;
  path: string;
}

/** Numeric version folders under basePath; throws NOT_FOUND-like errors to the caller when it is missing. */
export async function listVersions(basePath: string): Promise<VersionOnDisk[]> {
  const entries = await fs.readdir(basePath, { withFileTypes: true });
  const out = new Map<number, VersionOnDisk>();
  for (const e of entries) {
    if (!/^\d+$/.test(e.name)) continue;
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) isDir = await fs.stat(path.join(basePath, e.name)).then((s) => s.isDirectory(), () => false);
    if (!isDir) continue;
    const version = Number(e.name);
    if (!Number.isSafeInteger(version)) continue;
    // Two spellings of one version (1 and 001): keep the first seen, as TF Serving keeps one.
    if (!out.has(version)) out.set(version, { version, path: path.join(basePath, e.name) });
  }
  return [...out.values()].sort((a, b) => a.version - b.version);
}
