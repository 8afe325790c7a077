// --reload_config_allowed_base_paths: the directories a HandleReloadConfigRequest may name as
// base paths. Checked on the text of the path alone, before any file-system access, so a
// refused request learns nothing about what exists (symbolic links are not followed: a link
// under an allowed directory is the operator's own doing).
import path from 'node:path';

const URI = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Absolute, `..`-free form of a base path or URI (URIs keep their scheme, paths inside are normalised). */
function normaliseBasePath(p: string, cwd: string = process.cwd()): string {
  const uri = URI.exec(p);
  if (uri) return uri[0] + path.posix.normalize(`/${p.slice(uri[0].length)}`).slice(1);
  return path.resolve(cwd, p);
}

/** The flag's comma-separated list, normalised; empty: any base path is allowed. */
export function parseAllowedBasePaths(text: string, cwd: string = process.cwd()): string[] {
  return text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => normaliseBasePath(p, cwd).replace(/(?<=.)\/+$/, ''));
}

/** Whether `basePath` is one of `allowed` or inside one (whole path segments: /models does not allow /models-private). */
export function isAllowedBasePath(basePath: string, allowed: readonly string[], cwd: string = process.cwd()): boolean {
  if (!allowed.length) return true;
  const p = normaliseBasePath(basePath, cwd);
  return allowed.some((a) => p === a || p.startsWith(a.endsWith('/') ? a : `${a}/`));
}
