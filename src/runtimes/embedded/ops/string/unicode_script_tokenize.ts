// TF Text's UnicodeScriptTokenizeWithOffsets (text.UnicodeScriptTokenizer;
// tensorflow_text/core/kernels/unicode_script_tokenize_kernel.cc). Over code points (int32, a
// ragged row per string: input_splits), a token ends where ICU's Script of the code point
// changes (uscript_getScript: Common and Inherited are scripts like any other, so '!' and a
// combining mark split from a Latin word), or with keep_whitespace where White_Space starts or
// stops. Without keep_whitespace, white space is left out of the tokens: it neither starts a
// token nor ends one whose script it shares ('. .' is one token '..' whose limit is after the second '.'),
// and a token's limit leaves out the white space it ends with. Offsets are code point indices
// from the string's first code point; a value outside 0…U+10FFFF has no script (ICU's failure,
// USCRIPT_INVALID_CODE) and is not white space.
//
// Scripts come from unicode_script_table.ts, not from this Node's ICU: a code point whose Script
// differs between the Unicode of the ICUs TF Text is built with (12.1, 16.0) and the next (17.0)
// fails the request with UNIMPLEMENTED naming the op and the code point, never another answer.
//
// Each output is at most as long as the input, so the request's size bounds it.
import type * as tfconv from '@tensorflow/tfjs-converter';
import { unimplemented } from '../../../../errors/status.js';
import { intElements } from './string_tensors.js';
import { SCRIPT_RUNS } from './unicode_script_table.js';
import { checkCodePointSplits, emptyTokens, tokenOutputs, WHITE_SPACE_POINTS, type CodePointTokens } from './code_point_tokens.js';

const OP = 'UnicodeScriptTokenizeWithOffsets';
/** The table's index of a code point whose Script differs between the Unicode versions. */
const DIFFERS = 0;
/** ICU's USCRIPT_INVALID_CODE: a value that is no code point, and the state before a string's first. */
const INVALID_CODE = -1;

interface ScriptRuns {
  starts: Int32Array;
  scripts: Uint8Array;
}
let runs: ScriptRuns | undefined;

function scriptRuns(): ScriptRuns {
  if (runs) return runs;
  const entries = SCRIPT_RUNS.split(' ');
  const starts = new Int32Array(entries.length);
  const scripts = new Uint8Array(entries.length);
  entries.forEach((e, i) => {
    const [start, script] = e.split(':');
    starts[i] = parseInt(start, 16);
    scripts[i] = Number(script);
  });
  return (runs = { starts, scripts });
}

let lastRun = 0;

/** The index of the table's run holding `cp` (0 <= cp <= 0x10FFFF). */
function runOf(starts: Int32Array, cp: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= cp) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** uscript_getScript as TF Text's ICU answers it (the table's index), or the refusal where the versions differ. */
function scriptOf(cp: number): number {
  if (cp < 0 || cp > 0x10ffff) return INVALID_CODE;
  const { starts, scripts } = scriptRuns();
  // Text stays in one run for a while: try the last one before searching.
  if (!(starts[lastRun] <= cp && (lastRun + 1 === starts.length || cp < starts[lastRun + 1]))) lastRun = runOf(starts, cp);
  const script = scripts[lastRun];
  if (script === DIFFERS) {
    const u = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    throw unimplemented(
      `${OP}: the input holds ${u}, whose Unicode script differs between the Unicode versions of the ICUs TF Text is built with (12.1, 16.0) and 17.0; tfgate does not answer it`,
    );
  }
  return script;
}

/** The kernel's loop, over validated splits. */
function tokenize(values: Int32Array, splits: Int32Array, keepWhitespace: boolean): CodePointTokens {
  const out = emptyTokens();
  for (let row = 0; row + 1 < splits.length; row++) {
    out.outerSplits.push(out.starts.length);
    const first = splits[row];
    let previousScript = INVALID_CODE;
    let started = false;
    let skippedSpaces = 0;
    let wasSpace = false;
    for (let i = first; i < splits[row + 1]; i++) {
      const cp = values[i];
      const isSpace = WHITE_SPACE_POINTS.has(cp);
      const script = scriptOf(cp);
      if (script !== previousScript || (keepWhitespace && isSpace !== wasSpace)) {
        if (started) out.limits.push(i - first - skippedSpaces);
        previousScript = script;
        started = false;
      }
      if (!isSpace || keepWhitespace) {
        if (!started) {
          out.starts.push(i - first);
          out.innerSplits.push(out.values.length);
          started = true;
        }
        out.values.push(cp);
      }
      if (!keepWhitespace) skippedSpaces = isSpace ? skippedSpaces + 1 : 0;
      wasSpace = isSpace;
    }
    if (started) out.limits.push(splits[row + 1] - first - skippedSpaces);
  }
  out.outerSplits.push(out.starts.length);
  out.innerSplits.push(out.values.length);
  return out;
}

export const unicodeScriptTokenizeWithOffsetsOp: tfconv.OpExecutor = (node) => {
  const [valuesT, splitsT] = node.inputs;
  // The kernel reads both inputs flat (flat<int32>(), flat<Tsplits>()).
  const values = intElements(valuesT);
  const splits = intElements(splitsT);
  checkCodePointSplits(OP, splits, values.length);
  const keepWhitespace = Boolean((node.attrs as { keep_whitespace?: boolean }).keep_whitespace);
  return tokenOutputs(tokenize(values, splits, keepWhitespace), splitsT.shape);
};
