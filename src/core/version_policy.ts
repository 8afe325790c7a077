// Which of the versions found on disk a model should serve (ServableVersionPolicy). The
// policy's shape is the config's (model_version_policy), the only one there is.
// Pure: tested from tables.
import type { VersionPolicy } from '../config/model_server_config.js';

export type { VersionPolicy };

export function aspiredVersions(onDisk: readonly number[], policy: VersionPolicy): number[] {
  const sorted = [...new Set(onDisk)].sort((a, b) => a - b);
  if ('all' in policy) return sorted;
  if ('specific' in policy) {
    const wanted = new Set(policy.specific.versions);
    return sorted.filter((v) => wanted.has(v));
  }
  return sorted.slice(Math.max(0, sorted.length - policy.latest.num_versions));
}
