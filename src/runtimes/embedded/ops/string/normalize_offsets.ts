// TF Text's NormalizeUTF8WithOffsetsMap and FindSourceOffsets (normalize_kernels.cc).
//
// NormalizeUTF8WithOffsetsMap normalizes each string as NormalizeUTF8 does and outputs, beside
// it, a DT_VARIANT tensor of the same shape holding each string's icu::Edits; FindSourceOffsets
// maps offsets in the normalized strings back to the source through them. Here the variant is a
// string tensor whose elements are the edit records (icu_edits.ts), so that what the graph does
// to a variant between the two (Reshape, StridedSlice, Gather) carries it along; a signature
// cannot return it (tfjs_servable.ts refuses a DT_VARIANT output, as TF Serving's REST API does).
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import { bytesAttr, checkOutputBytes, intElements, stringElements, stringTensor } from './string_tensors.js';
import { FORMS, type Form } from './unicode_normalize.js';
import { normalizeWithEdits, OffsetsMap } from './icu_edits.js';
import tf from '../../../tfjs_packages/tfjs_core.cjs';

const OP = 'NormalizeUTF8WithOffsetsMap';

export const normalizeUTF8WithOffsetsMapOp: tfconv.OpExecutor = (node) => {
  // TF Text upper-cases the attr (absl::AsciiStrToUpper) and refuses another form in Compute.
  const form = new TextDecoder().decode(bytesAttr(node, 'normalization_form')).replace(/[a-z]/g, (c) => c.toUpperCase());
  if (!FORMS.includes(form)) throw invalidArgument(`Offset not supported for this normalization form: ${form}`);
  const x = node.inputs[0];
  const outputs: Uint8Array[] = [];
  const maps: Uint8Array[] = [];
  let bytes = 0;
  for (const [i, s] of stringElements(x, 'input').entries()) {
    const { output, edits } = normalizeWithEdits(OP, s, form as Form);
    const map = edits.encode();
    bytes += output.length + map.length;
    checkOutputBytes(OP, bytes, i + 1);
    outputs.push(output);
    maps.push(map);
  }
  return [stringTensor(outputs, x.shape), stringTensor(maps, x.shape)];
};

const DIMENSION_MISMATCH = 'Input offset tensor dimension did not match the offset map dimension.';

export const findSourceOffsetsOp: tfconv.OpExecutor = (node) => {
  const [offsetsMap, values, splits] = node.inputs;
  const maps = stringElements(offsetsMap, 'offsets_map');
  const offsets = intElements(values);
  const rowSplits = intElements(splits);
  const out = new Int32Array(offsets.length);
  let idxEdits = 0;
  let idxOut = 0;
  for (let i = 0; i + 1 < rowSplits.length; i++) {
    const begin = rowSplits[i];
    const end = rowSplits[i + 1];
    // TF Text's kernel: a row without offsets takes no offsets map (the next row takes it).
    if (begin === end) continue;
    if (idxEdits >= maps.length) throw invalidArgument(DIMENSION_MISMATCH);
    const edits = OffsetsMap.decode(maps[idxEdits++]);
    if (!edits) throw invalidArgument('FindSourceOffsets: offsets_map does not hold the offsets maps of NormalizeUTF8WithOffsetsMap');
    // TF Text reads and writes past its tensors for splits that do not partition the offsets.
    if (begin < 0 || end > offsets.length || (end > begin && idxOut + (end - begin) > out.length)) {
      throw invalidArgument(
        `FindSourceOffsets: input_offsets_splits [${begin}, ${end}) is not a row of the ${offsets.length} input offsets`,
      );
    }
    for (let j = begin; j < end; j++) out[idxOut++] = edits.sourceIndex('FindSourceOffsets', offsets[j], i);
  }
  if (idxEdits !== maps.length) throw invalidArgument(DIMENSION_MISMATCH);
  return [tf.tensor1d(out, 'int32')];
};
