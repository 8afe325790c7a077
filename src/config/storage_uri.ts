// Where a base path or a config file lives: a local path, or an object-storage URI. tfgate
// reads `s3://bucket/prefix` (AWS S3 and S3-compatible servers) and `gs://bucket/prefix`
// (Google Cloud Storage); `file:///path` is the local path /path, as TF's file system
// registry reads it. Any other scheme — hdfs://, viewfs://, az:// … — is refused where it
// is written, naming the scheme, rather than taken for a relative local path (`hdfs://nn/m`
// would otherwise become `<cwd>/hdfs:/nn/m`, never found, the model 404 for ever).
import path from 'node:path';

/** The object stores tfgate reads. */
const OBJECT_STORE_SCHEMES = ['s3', 'gs'] as const;

const SCHEME_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//;

/** The scheme of `scheme://…` in lower case, or undefined for a path. */
export function uriScheme(p: string): string | undefined {
  return SCHEME_RE.exec(p)?.[1].toLowerCase();
}

/** Whether `p` names a folder or object in an object store tfgate reads. */
export function isObjectStoreUri(p: string): boolean {
  const scheme = uriScheme(p);
  return scheme !== undefined && (OBJECT_STORE_SCHEMES as readonly string[]).includes(scheme);
}

/** Why `p` cannot be read (an unsupported scheme, or a URI without a bucket), or undefined when it can. */
export function unsupportedLocation(p: string): string | undefined {
  const scheme = uriScheme(p);
  if (scheme === undefined || scheme === 'file') return undefined;
  if (!(OBJECT_STORE_SCHEMES as readonly string[]).includes(scheme)) {
    return `the ${scheme}:// scheme is not supported (tfgate reads local paths, file://, s3:// and gs://)`;
  }
  if (!/^[a-z0-9]+:\/\/[^/]+/i.test(p)) return `${p} names no bucket (expected ${scheme}://bucket/prefix)`;
  return undefined;
}

/**
 * `p` made absolute: an object-store URI as written (trailing slashes dropped), file:// as
 * its path, a relative path under `baseDir` (a folder or a URI). A URI of a scheme tfgate
 * does not read stays as written, for unsupportedLocation() to name.
 */
export function resolveLocation(p: string, baseDir: string): string {
  const scheme = uriScheme(p);
  if (scheme === 'file') return path.resolve(decodeURIComponent(p.replace(/^file:\/\/(localhost)?/i, '')) || '/');
  if (scheme !== undefined) return isObjectStoreUri(p) ? p.replace(/\/+$/, '') : p;
  if (path.isAbsolute(p)) return p;
  return joinLocation(baseDir, p);
}

/** The folder holding `file` (a URI's parent prefix, or a path's directory), for relative base paths in it. */
export function parentLocation(file: string): string {
  if (isObjectStoreUri(file)) {
    const cut = file.lastIndexOf('/');
    return cut > file.indexOf('://') + 2 ? file.slice(0, cut) : file;
  }
  return path.dirname(path.resolve(file));
}

/** `relative` (a '/'-separated relative path) under `base`, a URI or a local folder; `..` cannot climb above a URI's bucket. */
function joinLocation(base: string, relative: string): string {
  if (!isObjectStoreUri(base)) return path.resolve(base, relative);
  const m = /^([a-z0-9]+:\/\/[^/]+)(.*)$/i.exec(base)!;
  const inside = path.posix.normalize(`/${m[2]}/${relative}`).replace(/\/+$/, '');
  return m[1] + inside;
}
