// Request-body JSON: what TF Serving's RapidJSON parser accepts (including bare NaN,
// Infinity and -Infinity, which JSON.parse rejects), with nesting-depth and element-count
// limits enforced before any tensor is built.
import { invalidArgument } from '../core/status.js';

export interface JsonLimits {
  maxDepth: number;
  maxElements: number;
}

// Bare NaN / Infinity / -Infinity outside strings, rewritten to sentinel strings for
// JSON.parse and restored by its reviver. Strings are matched first so their content is kept.
const NON_FINITE = /"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)/g;
const SENTINEL = '\u0000tfgate:';

function parseWithNonFinite(text: string): unknown {
  // The sentinel is written as the escape `\u0000` (a raw NUL is not allowed in JSON strings).
  const rewritten = text.replace(NON_FINITE, (m, bare: string | undefined) => (bare ? `"\\u0000tfgate:${bare}"` : m));
  return JSON.parse(rewritten, (_k, v) => {
    if (typeof v === 'string' && v.startsWith(SENTINEL)) return Number(v.slice(SENTINEL.length));
    return v;
  });
}

/** Byte-ish offset of a V8 JSON.parse error, for TF Serving's "at offset: N" suffix. */
function errorOffset(message: string): string {
  const m = /position (\d+)/.exec(message);
  return m ? m[1] : '0';
}

function checkLimits(root: unknown, limits: JsonLimits): void {
  let elements = 0;
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limits.maxDepth) throw invalidArgument(`JSON nesting is deeper than the limit of ${limits.maxDepth} (--json_max_depth)`);
    const children = Array.isArray(v) ? v : Object.values(v);
    elements += children.length;
    if (elements > limits.maxElements) throw invalidArgument(`JSON has more than the limit of ${limits.maxElements} elements (--json_max_elements)`);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push([c, depth + 1]);
  }
}

export function parseJsonBody(text: string, limits: JsonLimits): unknown {
  if (text.length === 0) throw invalidArgument('JSON Parse error: The document is empty');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    // Only take the slower path when the body really holds a non-finite literal.
    if (!/NaN|Infinity/.test(text)) throw invalidArgument(`JSON Parse error: ${(e as Error).message} at offset: ${errorOffset((e as Error).message)}`);
    try {
      doc = parseWithNonFinite(text);
    } catch (e2) {
      throw invalidArgument(`JSON Parse error: ${(e2 as Error).message} at offset: ${errorOffset((e2 as Error).message)}`);
    }
  }
  checkLimits(doc, limits);
  return doc;
}
