// Builds a kustomization the way `kubectl apply -k` would, for the subset deploy/kubernetes
// uses: `resources` (files, and folders holding a kustomization.yaml), `images` (newName /
// newTag) and `patches` given inline as JSON 6902 operations on a target kind and name. Any
// other field is refused, so this cannot quietly build something kustomize would not; where
// kubectl is installed the tests also compare the two builds.
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';

export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; [k: string]: unknown }; [k: string]: unknown };

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { target: { kind: string; name: string }; patch: string }[];
}

const KNOWN = new Set(['apiVersion', 'kind', 'resources', 'images', 'patches']);

/** Every YAML document of a manifest file (empty documents skipped). */
export function readManifests(file: string): K8sObject[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8'))
    .map((d) => {
      if (d.errors.length) throw new Error(`${file}: ${d.errors[0].message}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

/** The objects `kubectl kustomize dir` prints, in resource order. */
export function kustomizeBuild(dir: string): K8sObject[] {
  const k = parseYaml(fs.readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
  for (const key of Object.keys(k))
    if (!KNOWN.has(key)) throw new Error(`${dir}/kustomization.yaml: '${key}' is not in the subset this reader builds`);
  const objects: K8sObject[] = [];
  for (const r of k.resources ?? []) {
    const p = path.join(dir, r);
    objects.push(...(fs.statSync(p).isDirectory() ? kustomizeBuild(p) : readManifests(p)));
  }
  for (const patch of k.patches ?? []) {
    const targets = objects.filter((o) => o.kind === patch.target.kind && o.metadata.name === patch.target.name);
    if (!targets.length) throw new Error(`${dir}: no ${patch.target.kind} ${patch.target.name} to patch`);
    for (const t of targets) applyJsonPatch(t, parseYaml(patch.patch) as JsonPatchOp[]);
  }
  for (const image of k.images ?? []) for (const o of objects) for (const c of containersOf(o)) c.image = retag(c.image, image);
  return objects;
}

/** The containers (and init containers) of a Deployment's pod template or a (Cluster)ServingRuntime. */
export function containersOf(o: K8sObject): { name: string; image?: string; [k: string]: unknown }[] {
  const spec = o.spec as { template?: { spec?: Record<string, unknown> }; containers?: unknown[] } | undefined;
  const pod = spec?.template?.spec ?? (o.kind.endsWith('ServingRuntime') ? (spec as Record<string, unknown>) : undefined);
  if (!pod) return [];
  return [...((pod.initContainers as []) ?? []), ...((pod.containers as []) ?? [])];
}

function retag(image: string | undefined, rule: { name: string; newName?: string; newTag?: string }): string | undefined {
  if (!image) return image;
  const m = /^([^:@]+(?::\d+\/[^:@]+)?)(?::([^@]+))?$/.exec(image);
  if (!m || m[1] !== rule.name) return image;
  return `${rule.newName ?? m[1]}:${rule.newTag ?? m[2] ?? 'latest'}`;
}

type JsonPatchOp = { op: 'add' | 'replace' | 'remove'; path: string; value?: unknown };

/** RFC 6902 add / replace / remove (what the overlays use). */
function applyJsonPatch(doc: unknown, ops: JsonPatchOp[]): void {
  for (const op of ops) {
    const keys = op.path
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop()!;
    let parent = doc as Record<string, unknown>;
    for (const key of keys) {
      parent = parent[key] as Record<string, unknown>;
      if (parent === undefined) throw new Error(`patch ${op.op} ${op.path}: no ${key}`);
    }
    const isArray = Array.isArray(parent);
    if (op.op !== 'add' && !(last in parent)) throw new Error(`patch ${op.op} ${op.path}: nothing there`);
    if (op.op === 'remove') {
      if (isArray) (parent as unknown as unknown[]).splice(Number(last), 1);
      else delete parent[last];
    } else if (isArray && op.op === 'add')
      (parent as unknown as unknown[]).splice(last === '-' ? (parent as unknown as unknown[]).length : Number(last), 0, op.value);
    else parent[last] = op.value;
  }
}
