// Which TensorFlow ops the TF.js graph executor can run: read once from tfjs-converter's own
// op mapping tables (dist/operations/op_list/*.js) — only those its OperationMapper imports
// (4.22 ships op_list/ragged.js but never loads it, so those ops fail at predict with "Unknown
// op") — plus the ops tfgate implements itself (ops/index.ts).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { embeddedOp } from './ops/index.js';

let builtin: Set<string> | undefined;

function builtinOps(): Set<string> {
  if (builtin) return builtin;
  const require = createRequire(import.meta.url);
  const pkgDir = path.dirname(require.resolve('@tensorflow/tfjs-converter/package.json'));
  const dir = path.join(pkgDir, 'dist', 'operations', 'op_list');
  const mapper = fs.readFileSync(path.join(pkgDir, 'dist', 'operations', 'operation_mapper.js'), 'utf8');
  const loaded = new Set([...mapper.matchAll(/from '\.\/op_list\/([a-z_]+)'/g)].map((m) => `${m[1]}.js`));
  const ops = new Set<string>();
  for (const file of fs.readdirSync(dir)) {
    if (!loaded.has(file)) continue;
    for (const m of fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/tfOpName['"]?\s*:\s*['"]([A-Za-z0-9_]+)['"]/g)) ops.add(m[1]);
  }
  if (ops.size < 100) throw new Error(`could not read TF.js op list from ${dir}`);
  builtin = ops;
  return ops;
}

/** The TF ops tfjs-converter itself maps (its op_list). */
export function converterOps(): ReadonlySet<string> {
  return builtinOps();
}

export function isTfjsSupportedOp(op: string): boolean {
  return builtinOps().has(op) || embeddedOp(op) !== undefined;
}
