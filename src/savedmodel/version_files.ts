// Reading the files of a version folder without trusting them to be files. A version folder
// is whatever an operator (or a careless sync job) put under the base path, and a read that
// never ends stalls more than one load: every file read of the process shares libuv's four
// threads, so four reads blocked on a FIFO also block the file-system poll that would find
// a good new version. Hence, for every file tfgate reads from a version folder:
// - what it resolves to must be a regular file inside the version folder: a FIFO, a device,
//   a socket or a directory is refused before it is opened, and so is a symbolic link that
//   leads out of the folder (to /dev/zero, /proc/self/mem, another model);
// - it is opened non-blocking and without following a last-moment link, and checked again
//   on the open descriptor (a file swapped for a FIFO between the check and the open);
// - at most the size fstat reported is read (a file that grows is cut there), and a file
//   larger than its reader accepts is refused before a byte is read.
// Errors carry TF's codes for the errno (tsl/platform/errors.cc ErrnoToCode) and its
// "<file>; <strerror>" wording.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { constants as bufferConstants } from 'node:buffer';
import { Code, ServingError } from '../errors/status.js';

/** The most one read returns: what a Node Buffer can hold. */
const MAX_READ_BYTES = bufferConstants.MAX_LENGTH;
const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW;

/** Most entries a version folder may hold, and how deep it may nest (a runaway copy is no model). */
const MAX_ENTRIES = 100_000;
const MAX_DEPTH = 32;

const ERRNO_CODES: Record<string, Code> = {
  ENOENT: Code.NOT_FOUND,
  ENODEV: Code.NOT_FOUND,
  ENXIO: Code.NOT_FOUND,
  EACCES: Code.PERMISSION_DENIED,
  EPERM: Code.PERMISSION_DENIED,
  EROFS: Code.PERMISSION_DENIED,
  EISDIR: Code.FAILED_PRECONDITION,
  ENOTDIR: Code.FAILED_PRECONDITION,
  ENOTEMPTY: Code.FAILED_PRECONDITION,
  ETXTBSY: Code.FAILED_PRECONDITION,
  ELOOP: Code.FAILED_PRECONDITION,
  EINVAL: Code.INVALID_ARGUMENT,
  ENAMETOOLONG: Code.INVALID_ARGUMENT,
  EMFILE: Code.RESOURCE_EXHAUSTED,
  ENFILE: Code.RESOURCE_EXHAUSTED,
  ENOMEM: Code.RESOURCE_EXHAUSTED,
  ENOSPC: Code.RESOURCE_EXHAUSTED,
  EFBIG: Code.OUT_OF_RANGE,
  EOVERFLOW: Code.OUT_OF_RANGE,
  ERANGE: Code.OUT_OF_RANGE,
  EAGAIN: Code.UNAVAILABLE,
  EINTR: Code.UNAVAILABLE,
  ETIMEDOUT: Code.DEADLINE_EXCEEDED,
  ESTALE: Code.ABORTED,
  EDEADLK: Code.ABORTED,
};

/** An fs error as TF reports one: the errno's canonical code, "<file>; <strerror>". */
export function fileSystemError(e: unknown, file: string): ServingError {
  if (e instanceof ServingError) return e;
  const err = e as NodeJS.ErrnoException;
  const code = (err.code ? ERRNO_CODES[err.code] : undefined) ?? Code.UNKNOWN;
  // Node's message is "ENOENT: no such file or directory, open '/x'": keep the strerror part.
  const reason = /^[A-Z]+: ([^,]+)/.exec(err.message ?? '')?.[1] ?? err.message ?? String(e);
  // strerror's capital: "No such file or directory".
  return new ServingError(code, `${file}; ${reason.charAt(0).toUpperCase()}${reason.slice(1)}`);
}

function kindOf(st: fs.Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a directory';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

function notRegular(file: string, st: fs.Stats): ServingError {
  return new ServingError(
    Code.FAILED_PRECONDITION,
    `${file} is ${kindOf(st)}, not a regular file; tfgate reads only regular files from a version folder`,
  );
}

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function leavesFolder(file: string, real: string, root: string): ServingError {
  return new ServingError(
    Code.FAILED_PRECONDITION,
    `${file} is a symbolic link to ${real}, outside the version folder ${root}; tfgate reads only files inside the version folder`,
  );
}

export interface ReadLimits {
  /** Largest size accepted (default: what a Buffer holds). */
  maxBytes?: number;
  /** The error for a file over maxBytes (default: OUT_OF_RANGE naming both sizes). */
  tooLarge?: (size: number, maxBytes: number) => ServingError;
}

const defaultTooLarge = (file: string) => (size: number, max: number) =>
  new ServingError(Code.OUT_OF_RANGE, `${file} is ${size} bytes, over the ${max} bytes tfgate reads from one file`);

/** Where `file` (inside `versionDir`) really is, refusing a link out of the folder. */
async function resolveInside(versionDir: string, file: string): Promise<string> {
  let root: string;
  let real: string;
  try {
    root = await fsp.realpath(versionDir);
    real = await fsp.realpath(file);
  } catch (e) {
    throw fileSystemError(e, file);
  }
  if (!inside(root, real)) throw leavesFolder(file, real, versionDir);
  return real;
}

function resolveInsideSync(versionDir: string, file: string): string {
  let root: string;
  let real: string;
  try {
    root = fs.realpathSync(versionDir);
    real = fs.realpathSync(file);
  } catch (e) {
    throw fileSystemError(e, file);
  }
  if (!inside(root, real)) throw leavesFolder(file, real, versionDir);
  return real;
}

/**
 * The bytes of `file`, a file of the version folder `versionDir` (see the module comment).
 * NOT_FOUND when it does not exist; FAILED_PRECONDITION when it is not a regular file inside
 * the folder; the errno's code for other failures.
 */
export async function readVersionFile(versionDir: string, file: string, limits: ReadLimits = {}): Promise<Buffer> {
  const real = await resolveInside(versionDir, file);
  let st: fs.Stats;
  try {
    st = await fsp.stat(real);
  } catch (e) {
    throw fileSystemError(e, file);
  }
  if (!st.isFile()) throw notRegular(file, st);
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(real, OPEN_FLAGS);
  } catch (e) {
    throw fileSystemError(e, file);
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw notRegular(file, opened);
    const max = Math.min(limits.maxBytes ?? MAX_READ_BYTES, MAX_READ_BYTES);
    if (opened.size > max) throw (limits.tooLarge ?? defaultTooLarge(file))(opened.size, max);
    const out = Buffer.allocUnsafe(opened.size);
    let done = 0;
    while (done < out.length) {
      const { bytesRead } = await handle.read(out, done, out.length - done, done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done === out.length ? out : out.subarray(0, done);
  } catch (e) {
    throw fileSystemError(e, file);
  } finally {
    await handle.close();
  }
}

/** A descriptor of `file` opened as readVersionFile opens it, with its size; the caller closes it. */
export function openVersionFileSync(versionDir: string, file: string): { fd: number; size: number } {
  const real = resolveInsideSync(versionDir, file);
  let st: fs.Stats;
  try {
    st = fs.statSync(real);
  } catch (e) {
    throw fileSystemError(e, file);
  }
  if (!st.isFile()) throw notRegular(file, st);
  let fd: number;
  try {
    fd = fs.openSync(real, OPEN_FLAGS);
  } catch (e) {
    throw fileSystemError(e, file);
  }
  const opened = fs.fstatSync(fd);
  if (!opened.isFile()) {
    fs.closeSync(fd);
    throw notRegular(file, opened);
  }
  return { fd, size: opened.size };
}

/** readVersionFile on the calling thread (executor threads' synchronous readers). */
export function readVersionFileSync(versionDir: string, file: string, limits: ReadLimits = {}): Buffer {
  const { fd, size } = openVersionFileSync(versionDir, file);
  try {
    const max = Math.min(limits.maxBytes ?? MAX_READ_BYTES, MAX_READ_BYTES);
    if (size > max) throw (limits.tooLarge ?? defaultTooLarge(file))(size, max);
    const out = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const n = fs.readSync(fd, out, done, size - done, done);
      if (n === 0) break;
      done += n;
    }
    return done === size ? out : out.subarray(0, done);
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether anything exists at `file` (no link followed, nothing opened); other errors are thrown. */
export async function versionPathExists(file: string): Promise<boolean> {
  try {
    await fsp.lstat(file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw fileSystemError(e, file);
  }
}

export interface VersionInventory {
  /** Bytes of the regular files in the folder (links inside it counted once, at their target). */
  bytes: number;
  files: number;
}

/**
 * Walks a version folder with lstat (nothing is opened) and sums its regular files' sizes.
 * Refuses the version when anything in it is a FIFO, a device or a socket, or a symbolic link
 * that leads out of the folder (or nowhere): such a folder is not a model, and reading it
 * would block or never end.
 */
export async function versionInventory(versionDir: string): Promise<VersionInventory> {
  let root: string;
  try {
    root = await fsp.realpath(versionDir);
  } catch (e) {
    throw fileSystemError(e, versionDir);
  }
  const rootStat = await fsp.stat(root).catch((e: unknown) => Promise.reject(fileSystemError(e, versionDir)));
  if (!rootStat.isDirectory())
    throw new ServingError(Code.FAILED_PRECONDITION, `${versionDir} is ${kindOf(rootStat)}, not a version folder`);
  let bytes = 0;
  let files = 0;
  let entries = 0;
  const counted = new Set<string>();
  const stack: Array<[string, number]> = [[versionDir, 0]];
  while (stack.length) {
    const [dir, depth] = stack.pop()!;
    if (depth > MAX_DEPTH)
      throw new ServingError(
        Code.FAILED_PRECONDITION,
        `${dir} nests more than ${MAX_DEPTH} folders deep inside the version folder ${versionDir}`,
      );
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch (e) {
      throw fileSystemError(e, dir);
    }
    for (const name of names) {
      if (++entries > MAX_ENTRIES)
        throw new ServingError(Code.FAILED_PRECONDITION, `the version folder ${versionDir} holds more than ${MAX_ENTRIES} entries`);
      const p = path.join(dir, name);
      let st: fs.Stats;
      try {
        st = await fsp.lstat(p);
      } catch (e) {
        throw fileSystemError(e, p);
      }
      if (st.isSymbolicLink()) {
        let real: string;
        try {
          real = await fsp.realpath(p);
        } catch (e) {
          throw new ServingError(
            Code.FAILED_PRECONDITION,
            `${p} is a symbolic link that leads nowhere readable (${fileSystemError(e, p).message})`,
          );
        }
        if (!inside(root, real)) throw leavesFolder(p, real, versionDir);
        const target = await fsp.stat(real).catch((e: unknown) => Promise.reject(fileSystemError(e, p)));
        // A link to a folder inside is walked where the folder itself is; to a file, counted once.
        if (target.isFile() && !counted.has(real)) {
          counted.add(real);
          bytes += target.size;
          files++;
        } else if (!target.isFile() && !target.isDirectory()) throw notRegular(p, target);
        continue;
      }
      if (st.isDirectory()) stack.push([p, depth + 1]);
      else if (st.isFile()) {
        const real = path.join(root, path.relative(versionDir, p));
        if (counted.has(real)) continue;
        counted.add(real);
        bytes += st.size;
        files++;
      } else throw notRegular(p, st);
    }
  }
  return { bytes, files };
}
