// `tfgate show`: prints what TensorFlow's `saved_model_cli show` prints for the same flags.
import type { SavedModelObject, SignatureDefObject, TensorInfoObject } from '../savedmodel/saved_model_reader.js';
import { selectMetaGraph } from '../savedmodel/saved_model_reader.js';

export interface ShowOptions {
  tagSet?: string;
  signatureDef?: string;
  all: boolean;
}

function formatShape(info: TensorInfoObject): string {
  const shape = info.tensorShape;
  if (!shape || shape.unknownRank) return 'unknown_rank';
  const dims = (shape.dim ?? []).map((d) => String(Number(d.size ?? 0)));
  return dims.length === 1 ? `(${dims[0]})` : `(${dims.join(', ')})`;
}

function tensorInfoLines(info: TensorInfoObject, indent: string): string[] {
  const lines = [`${indent}dtype: ${info.dtype ?? 'DT_INVALID'}`, `${indent}shape: ${formatShape(info)}`];
  if (info.name !== undefined) lines.push(`${indent}name: ${info.name}`);
  else if (info.cooSparse) lines.push(`${indent}(sparse tensor)`);
  else lines.push(`${indent}(composite tensor)`);
  return lines;
}

function signatureLines(def: SignatureDefObject, indent: string): string[] {
  const lines = [`${indent}The given SavedModel SignatureDef contains the following input(s):`];
  for (const [k, info] of Object.entries(def.inputs ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`${indent}  inputs['${k}'] tensor_info:`, ...tensorInfoLines(info, `${indent}      `));
  }
  lines.push(`${indent}The given SavedModel SignatureDef contains the following output(s):`);
  for (const [k, info] of Object.entries(def.outputs ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`${indent}  outputs['${k}'] tensor_info:`, ...tensorInfoLines(info, `${indent}      `));
  }
  lines.push(`${indent}Method name is: ${def.methodName ?? ''}`);
  return lines;
}

const tagSetText = (tags: string[] | undefined) => `'${[...(tags ?? [])].sort().join(', ')}'`;

/** Returns the text to print; throws ServingError for unknown tag sets or signatures. */
export function showSavedModel(sm: SavedModelObject, options: ShowOptions): string {
  const lines: string[] = [];
  if (options.all) {
    for (const mg of sm.metaGraphs ?? []) {
      lines.push('', `MetaGraphDef with tag-set: ${tagSetText(mg.metaInfoDef?.tags)} contains the following SignatureDefs:`);
      for (const [key, def] of Object.entries(mg.signatureDef ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
        lines.push('', `signature_def['${key}']:`, ...signatureLines(def, '  '));
      }
    }
    return lines.join('\n') + '\n';
  }
  if (!options.tagSet) {
    lines.push('The given SavedModel contains the following tag-sets:');
    for (const mg of sm.metaGraphs ?? []) lines.push(tagSetText(mg.metaInfoDef?.tags));
    return lines.join('\n') + '\n';
  }
  const mg = selectMetaGraph(
    sm,
    options.tagSet.split(',').map((t) => t.trim()),
  );
  if (!options.signatureDef) {
    lines.push('The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:');
    for (const key of Object.keys(mg.signatureDef ?? {}).sort()) lines.push(`SignatureDef key: "${key}"`);
    return lines.join('\n') + '\n';
  }
  const def = mg.signatureDef?.[options.signatureDef];
  if (!def)
    throw new Error(
      `Could not find signature "${options.signatureDef}". Please choose from: ${Object.keys(mg.signatureDef ?? {}).join(', ')}`,
    );
  return signatureLines(def, '').join('\n') + '\n';
}
