// JSON text exactly as TF Serving's RapidJSON 1.1.0 writes it, where a client can see the
// difference: the echoes of request values in error messages (JsonValueToDebugString), string
// escaping, and the type names of JsonTypeString. tfgate's messages must match TF Serving's
// byte for byte, so these do not use JSON.stringify:
//   JSON.stringify("\x1f")  → "\u001f"   rapidjsonString → "\u001F"
//   JSON.stringify(1e21)    → 1e+21      rapidjsonDouble → 1e21
//   JSON.stringify(1.0)     → 1          debugJson       → 1.0 (written as a float, echoed as one)
//   {"a": [1, 2]}                        debugJson       → {\n    "a": [1, 2]\n}
import { floatElements, isFloatMember, type JsonValue } from './json_parse.js';

const DEBUG_LIMIT_BYTES = 256;

/** JsonTypeString. */
export function jsonTypeString(v: JsonValue): string {
  if (v === null) return 'Null';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (Array.isArray(v)) return 'Array';
  switch (typeof v) {
    case 'string':
      return 'String';
    case 'number':
    case 'bigint':
      return 'Number';
    default:
      return 'Object';
  }
}

// =============================================================================================
// JsonValueToDebugString: RapidJSON's PrettyWriter with single-line arrays, cut off once 256
// bytes are written (at event granularity, as JsonWriterWithLimit does). Numbers keep their
// RapidJSON type: integer literals as integers, doubles as RapidJSON's dtoa writes them; a
// NaN / Infinity double stops the writer there (RapidJSON's Writer refuses to write it).
// =============================================================================================

/** A parsed JSON value as TF Serving prints it in error messages. `marked`: a number written as a float. */
export function debugJson(v: JsonValue, marked = false): string {
  const w = new DebugWriter();
  w.value(v, marked);
  return w.out;
}

class DebugWriter {
  out = '';
  private bytes = 0;
  /** Open containers: [isArray, valueCount]. */
  private readonly levels: Array<{ inArray: boolean; count: number }> = [];

  private put(s: string): void {
    this.out += s;
    this.bytes += Buffer.byteLength(s, 'utf8');
  }

  private inLimit(): boolean {
    return this.bytes < DEBUG_LIMIT_BYTES;
  }

  private prefix(): void {
    const level = this.levels[this.levels.length - 1];
    if (level === undefined) return;
    if (level.inArray) {
      if (level.count > 0) this.put(', ');
    } else {
      if (level.count > 0) this.put(level.count % 2 === 0 ? ',\n' : ': ');
      else this.put('\n');
      if (level.count % 2 === 0) this.put(indent(this.levels.length));
    }
    level.count++;
  }

  /** False once the writer stopped (limit reached, or a non-finite double). */
  value(v: JsonValue, marked: boolean): boolean {
    if (!this.inLimit()) return false;
    if (Array.isArray(v)) {
      this.prefix();
      this.put('[');
      this.levels.push({ inArray: true, count: 0 });
      const floatAt = floatElements(v);
      for (let k = 0; k < v.length; k++) {
        if (!this.value(v[k], floatAt !== undefined && floatAt(k))) return false;
      }
      if (!this.inLimit()) return false;
      this.levels.pop();
      this.put(']');
      return true;
    }
    if (v !== null && typeof v === 'object') {
      this.prefix();
      this.put('{');
      const level = { inArray: false, count: 0 };
      this.levels.push(level);
      for (const key of Object.keys(v)) {
        if (!this.inLimit()) return false;
        this.prefix();
        this.put(rapidjsonString(key));
        if (!this.value(v[key], isFloatMember(v, key))) return false;
      }
      if (!this.inLimit()) return false;
      this.levels.pop();
      if (level.count > 0) this.put('\n' + indent(this.levels.length));
      this.put('}');
      return true;
    }
    this.prefix();
    switch (typeof v) {
      case 'string':
        this.put(rapidjsonString(v));
        return true;
      case 'boolean':
        this.put(v ? 'true' : 'false');
        return true;
      case 'bigint':
        this.put(String(v));
        return true;
      case 'number':
        if (marked || !Number.isInteger(v)) {
          if (!Number.isFinite(v)) return false;
          this.put(rapidjsonDouble(v));
        } else {
          this.put(String(v));
        }
        return true;
      default:
        this.put('null');
        return true;
    }
  }
}

const INDENTS: string[] = [];
/** PrettyWriter's indentation: 4 spaces per open container. */
export function indent(levels: number): string {
  return (INDENTS[levels] ??= ' '.repeat(4 * levels));
}

/** RapidJSON's Writer::Double (Grisu shortest digits, then its Prettify layout). */
export function rapidjsonDouble(d: number): string {
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const e = d.toExponential(); // shortest round-trip digits
  const neg = d < 0;
  const ePos = e.indexOf('e');
  const digits = e.slice(neg ? 1 : 0, ePos).replace('.', '');
  const length = digits.length;
  const kk = Number(e.slice(ePos + 1)) + 1; // 10^(kk-1) <= |d| < 10^kk
  const k = kk - length;
  let s: string;
  if (k >= 0 && kk <= 21) s = digits + '0'.repeat(k) + '.0';
  else if (kk > 0 && kk <= 21) s = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -6 && kk <= 0) s = `0.${'0'.repeat(-kk)}${digits}`;
  else if (length === 1) s = `${digits}e${kk - 1}`;
  else s = `${digits[0]}.${digits.slice(1)}e${kk - 1}`;
  return neg ? `-${s}` : s;
}

/** RapidJSON's Writer::String: escapes '"', '\\' and control characters (\b \t \n \f \r, else \u00XX). */
export function rapidjsonString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(run, i);
    run = i + 1;
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x08:
        out += '\\b';
        break;
      case 0x09:
        out += '\\t';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0c:
        out += '\\f';
        break;
      case 0x0d:
        out += '\\r';
        break;
      default:
        out += `\\u00${c < 0x10 ? '0' : '1'}${'0123456789ABCDEF'[c & 15]}`;
    }
  }
  return `${out}${s.slice(run)}"`;
}
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
