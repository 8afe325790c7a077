// Local folders: the storage seam over node:fs. Versions on a local disk load in place
// (never copied), so listTree() and open() serve only config files and tests.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FolderListing, Storage, StoredObject } from './storage.js';
import { StorageError } from './storage_error.js';

/** A Node fs error as a StorageError with the same code and path (ENOENT of the folder stays ENOENT). */
function fromFs(e: NodeJS.ErrnoException, location: string): StorageError {
  return new StorageError(e.message, e.code ?? 'EIO', e.path ?? location);
}

export const localStorage: Storage = {
  async list(folder: string): Promise<FolderListing> {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(folder, { withFileTypes: true });
    } catch (e) {
      throw fromFs(e as NodeJS.ErrnoException, folder);
    }
    const folders: string[] = [];
    const files: string[] = [];
    for (const e of entries) {
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        const target = await statBehindLink(path.join(folder, e.name));
        isDir = target?.isDirectory() ?? false;
        isFile = target?.isFile() ?? false;
      }
      if (isDir) folders.push(e.name);
      else if (isFile) files.push(e.name);
    }
    return { folders, files };
  },

  async listTree(folder: string): Promise<StoredObject[]> {
    const out: StoredObject[] = [];
    const walk = async (dir: string, rel: string): Promise<void> => {
      const { folders, files } = await localStorage.list(dir);
      for (const f of files) out.push({ path: rel + f, bytes: (await fsp.stat(path.join(dir, f))).size });
      for (const d of folders) await walk(path.join(dir, d), `${rel}${d}/`);
    };
    await walk(folder, '');
    return out;
  },

  async open(file: string): Promise<Readable> {
    try {
      const handle = await fsp.open(file, 'r');
      return handle.createReadStream();
    } catch (e) {
      throw fromFs(e as NodeJS.ErrnoException, file);
    }
  },
};

/** A dangling link is neither file nor folder; any other stat error (EMFILE, EACCES…) is the listing's error. */
async function statBehindLink(link: string): Promise<fs.Stats | undefined> {
  try {
    return await fsp.stat(link);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fromFs(e as NodeJS.ErrnoException, link);
  }
}
