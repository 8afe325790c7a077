// Which TensorFlow ops the TF.js graph executor can run: read once from tfjs-converter's own
// op mapping tables (dist/operations/op_list/*.js), plus ops registered with registerOp().
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import * as tfconv from '@tensorflow/tfjs-converter';

let builtin: Set<string> | undefined;

function builtinOps(): Set<string> {
  if (builtin) return builtin;
  const require = createRequire(import.meta.url);
  const pkgDir = path.dirname(require.resolve('@tensorflow/tfjs-converter/package.json'));
  const dir = path.join(pkgDir, 'dist', 'operations', 'op_list');
  const ops = new Set<string>();
  for (const file of fs.readdirSync(dir)) {
    if (!file.endsWith('.js')) continue;
    for (const m of fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/tfOpName['"]?\s*:\s*['"]([A-Za-z0-9_]+)['"]/g)) ops.add(m[1]);
  }
  if (ops.size < 100) throw new Error(`could not read TF.js op list from ${dir}`);
  builtin = ops;
  return ops;
}

const customOps = new Set<string>();

/** Registers an op implementation with the TF.js graph executor (e.g. ParseExample later). */
export function registerCustomOp(name: string, impl: tfconv.OpExecutor): void {
  tfconv.registerOp(name, impl);
  customOps.add(name);
}

export function isTfjsSupportedOp(op: string): boolean {
  return builtinOps().has(op) || customOps.has(op);
}
