// Which of the versions found on disk a model should serve (ServableVersionPolicy).
// Pure: tested from tables.
export type VersionPolicy = { latest: { numVersions: number } } | { all: Record<string, never> } | { specific: { versions: number[] } };

export function aspiredVersions(onDisk: readonly number[], policy: VersionPolicy): number[] {
  const sorted = [...new Set(onDisk)].sort((a, b) => a - b);
  if ('all' in policy) return sorted;
  if ('specific' in policy) {
    const wanted = new Set(policy.specific.versions);
    return sorted.filter((v) => wanted.has(v));
  }
  return sorted.slice(Math.max(0, sorted.length - policy.latest.numVersions));
}
