// The edits ICU's Normalizer2::normalizeUTF8 records (icu::Edits, normalizer2impl.cpp's
// composeUTF8 for NFC/NFKC and decomposeUTF8 for NFD/NFKD), as NormalizeUTF8WithOffsetsMap
// keeps them for FindSourceOffsets, and Edits::Iterator::sourceIndexFromDestinationIndex over
// them.
//
// How ICU records: it copies text that needs no change and records it as unchanged; where a
// change is needed it records one replacement per stretch it normalized at once. Which stretch
// is one replacement follows ICU's own data (composition boundaries, its fast paths), and
// FindSourceOffsets maps an offset inside a replacement to the replacement's end. tfgate does
// not hold ICU's data; it reproduces the records where they follow from the Unicode properties
// alone, and keeps the rest as "unknown" stretches whose ends are known:
// - A code point that is its own normalization, has combining class 0 and (composing forms)
//   combines with nothing before it starts a stretch no record crosses: ICU's fast path copies
//   it and every slow-path stretch stops before it (norm16HasCompBoundaryBefore, or a
//   decomposition boundary) and reaches back at most to it. So the text is cut into zones, each
//   such a code point (or the string's start) and what follows up to the next one.
// - A zone whose normalization is itself is one unchanged record: ICU records a change only
//   where its quick check fails, and the quick check is what decides the text is normalized.
// - A zone of starters that each map (compatibility or canonical), each mapping starting with a
//   class-0 code point that combines with nothing before it: one replacement per code point
//   (the mapping fast path of composeUTF8, or a slow-path stretch ending at the next boundary;
//   decomposeUTF8 decomposes each alone for the same reason).
// - A zone's head and combining marks on it: composing, one replacement from the head when ICU
//   has no composition boundary after it (the slow path backs up to it), else from the first
//   mark; decomposing, one replacement of the marks when none has combining class 1 (classes 0
//   and 1 end ICU's stretch).
// - A mapped starter with marks on it (ｶﾞ): composing, one replacement of both when ICU has no
//   composition boundary after it or its mapping recomposes (no mapping fast path), else the
//   starter alone and the marks; decomposing, the starter alone then the marks when its
//   decomposition ends with a starter, or both as one when it ends with a mark. A zone may hold
//   several such groups after its head and the head's marks.
// - Conjoining jamo L V (T), or a syllable LV and a T: one replacement (composeUTF8's Hangul path).
// ICU's composition-boundary-after bit is computed as its data builder computes it (gennorm2's
// mappingHasCompBoundaryAfter), from the canonical compositions and Node's canonical ordering.
// Anything else (jamo V or T without an L, marks after a starter that composes backward, …) is
// one unknown zone: FindSourceOffsets refuses an offset strictly inside it,
// naming the op, and answers those at its ends and elsewhere. icu_edits.test.ts compares the
// answers with ICU's own records.
import { Code, ServingError } from '../../../../errors/status.js';
import { COMBINES_BACK, COMBINES_FORWARD, COMPOSITIONS } from './unicode_tables.js';
import { normalizeBytes, normalizeForm, rangeSet, sequenceLength, type Form } from './unicode_normalize.js';

/** One edit record: source and destination lengths in bytes. */
export interface EditSpan {
  kind: 'unchanged' | 'change' | 'unknown';
  src: number;
  dst: number;
}

const combinesForward = rangeSet(COMBINES_FORWARD);
const combinesBack = rangeSet(COMBINES_BACK);

// Combining classes from Node's normalizer (the same as ICU's for every code point the op does
// not refuse): U+0345 has the highest class in use (240) and U+0334 the lowest above 0 (1), so
// a mark of any other class moves before U+0345 and U+0334 moves before a mark of class 240.
const cccMemo = new Map<number, number>();
/** 0 (class 0), 1 (class 1) or 2 (a higher class), of a code point that does not decompose canonically. */
function cccKind(cp: number): number {
  let kind = cccMemo.get(cp);
  if (kind !== undefined) return kind;
  const c = String.fromCodePoint(cp);
  const movesBefore240 = `\u0345${c}`.normalize('NFD') !== `\u0345${c}`;
  const lets1Before = `${c}\u0334`.normalize('NFD') !== `${c}\u0334`;
  const movesBefore1 = `\u0334${c}`.normalize('NFD') !== `\u0334${c}`;
  kind = !movesBefore240 && !lets1Before ? 0 : !lets1Before && !movesBefore1 ? 1 : 2;
  if (cccMemo.size >= 1 << 16) cccMemo.clear();
  cccMemo.set(cp, kind);
  return kind;
}

const firstCodePoint = (s: string) => s.codePointAt(0)!;

interface Unit {
  start: number;
  end: number;
  /** The code point; -1 for a byte that is not UTF-8 (ICU: inert, copied). */
  cp: number;
}

/** The code point of the well-formed sequence of `n` bytes at `i`. */
function codePointAt(s: Uint8Array, i: number, n: number): number {
  if (n === 1) return s[i];
  let cp = s[i] & (0xff >> (n + 1));
  for (let k = 1; k < n; k++) cp = (cp << 6) | (s[i + k] & 0x3f);
  return cp;
}

const utf8Length = (text: string) => Buffer.byteLength(text, 'utf8');
const isJamo = (cp: number) => (cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0xa960 && cp <= 0xa97f) || (cp >= 0xd7b0 && cp <= 0xd7ff);

let compositionMap: Map<number, Map<number, number>> | undefined;
/** The code points `cp` composes with (second of a pair) and the composites, Hangul's aside. */
function compositionsOf(cp: number): Map<number, number> | undefined {
  if (!compositionMap) {
    compositionMap = new Map();
    for (const entry of COMPOSITIONS.split(' ')) {
      const [pair, composite] = entry.split(':');
      const [first, second] = pair.split('.').map((h) => parseInt(h, 16));
      let list = compositionMap.get(first);
      if (!list) compositionMap.set(first, (list = new Map()));
      list.set(second, parseInt(composite, 16));
    }
  }
  return compositionMap.get(cp);
}

/** Whether mark `a`'s combining class is below mark `b`'s (Node's canonical ordering decides). */
const classBelow = (a: number, b: number): boolean => {
  const ab = String.fromCodePoint(a, b);
  return ab.normalize('NFD') === ab && String.fromCodePoint(b, a).normalize('NFD') !== String.fromCodePoint(b, a);
};

/** A combining class as gennorm2 compares them: 0, a mark (its code point), or 256 (above all). */
type ClassOf = 0 | number;
const ABOVE_ALL = -1;

/** Norms::combinesWithCCBetween: the starter composes with a mark whose class is strictly between. */
function combinesBetween(compositions: Map<number, number> | undefined, low: ClassOf, high: ClassOf): boolean {
  if (!compositions) return false;
  for (const trail of compositions.keys()) {
    if (cccKind(trail) === 0) continue;
    if ((low === 0 || classBelow(low, trail)) && (high === ABOVE_ALL || classBelow(trail, high))) return true;
  }
  return false;
}

/**
 * gennorm2's mappingHasCompBoundaryAfter (n2builder.cpp) over a full decomposition `mapping`:
 * whether ICU records a composition boundary after a character that maps to it. A round-trip
 * (canonical) mapping, or a one-way one (compatibility, or a singleton).
 */
function mappingHasCompBoundaryAfter(mapping: number[], oneWay: boolean): boolean {
  const isStarter = (cp: number) => cccKind(cp) === 0;
  let lastStarterIndex = -1;
  for (let k = mapping.length - 1; k >= 0; k--) if (isStarter(mapping[k])) ((lastStarterIndex = k), (k = -1));
  if (lastStarterIndex < 0) return false;
  const lastIndex = mapping.length - 1;
  if (oneWay && lastStarterIndex < lastIndex && cccKind(mapping[lastIndex]) !== 1) return false;
  let starter = mapping[lastStarterIndex];
  if (lastStarterIndex === 0 && combinesBack(starter)) return false;
  if (isJamoL(starter) || (isJamoV(starter) && lastStarterIndex > 0 && isJamoL(mapping[lastStarterIndex - 1])))
    return lastStarterIndex !== lastIndex;
  let i = lastStarterIndex;
  while (i > 0 && isStarter(mapping[i - 1]) && !isJamo(mapping[i - 1])) starter = mapping[--i];
  let compositions = compositionsOf(starter);
  if (i === lastStarterIndex && !compositions) return true;
  let prev: ClassOf = 0;
  while (++i < mapping.length) {
    const c = mapping[i];
    const mark = !isStarter(c);
    if (i > lastStarterIndex && mark && combinesBetween(compositions, prev, c)) return false;
    const composite = compositions?.get(c);
    if (composite !== undefined && (prev === 0 || (mark && classBelow(prev, c))) && combinesBack(c)) {
      compositions = compositionsOf(composite);
      if (i >= lastStarterIndex && !compositions) return true;
    } else if (!mark) {
      compositions = compositionsOf(c);
      if (i === lastStarterIndex && !compositions) return true;
      prev = 0;
    } else {
      prev = c;
    }
  }
  if (prev === 0) return false;
  return !combinesBetween(compositions, prev, ABOVE_ALL);
}

/** gennorm2's mappingRecomposes: something in the mapping composes (so ICU's mapping fast path is not taken). */
function mappingRecomposes(mapping: number[]): boolean {
  let compositions: Map<number, number> | undefined;
  let starterSeen = false;
  let prev: ClassOf = 0;
  for (let i = 0; i < mapping.length; i++) {
    const c = mapping[i];
    const mark = cccKind(c) !== 0;
    if (starterSeen && compositions && (prev === 0 || (mark && classBelow(prev, c))) && combinesBack(c) && compositions.has(c)) return true;
    if (!mark) {
      if (isJamoL(c)) {
        if (i + 1 < mapping.length && isJamoV(mapping[i + 1])) return true;
        compositions = undefined;
      } else {
        compositions = compositionsOf(c);
      }
      starterSeen = true;
    }
    prev = mark ? c : 0;
  }
  return false;
}

/**
 * Whether ICU's data for the composing form `composed` has a composition boundary after `cp`
 * (its HAS_COMP_BOUNDARY_AFTER bit). A character the form changes is held with a one-way
 * mapping (a round-trip one would make it pass the quick check unchanged); one it keeps, with
 * a round trip.
 */
function hasCompBoundaryAfter(cp: number, composed: Form, decomposed: Form): boolean {
  if (cp < 0) return true;
  if (cp >= 0xac00 && cp <= 0xd7a3) return !isHangulLV(cp);
  if (compositionsOf(cp) || combinesForward(cp)) return false;
  const c = String.fromCodePoint(cp);
  const full = c.normalize(decomposed);
  if (full === c) return cccKind(cp) === 0 && !combinesBack(cp);
  const mapping = [...full].map((ch) => ch.codePointAt(0)!);
  return mappingHasCompBoundaryAfter(mapping, c.normalize(composed) !== c);
}

const ZONE_START = 1;
const MAPPED_STARTER = 2;
const MARK = 4;
/** Each form's classes of the code points seen, remembered; bounded, since a request chooses which code points come. */
const classMemo = new Map<Form, Map<number, number>>();
const lengthMemo = new Map<Form, Map<number, number>>();

class Normalization {
  readonly composing: boolean;
  readonly decomposed: Form;
  private readonly memo: Map<number, number>;
  private readonly lengthMemo: Map<number, number>;

  constructor(
    readonly op: string,
    readonly form: Form,
  ) {
    this.composing = form === 'NFC' || form === 'NFKC';
    this.decomposed = form === 'NFC' || form === 'NFD' ? 'NFD' : 'NFKD';
    let memo = classMemo.get(form);
    if (!memo) classMemo.set(form, (memo = new Map()));
    this.memo = memo;
    let lengths = lengthMemo.get(form);
    if (!lengths) lengthMemo.set(form, (lengths = new Map()));
    this.lengthMemo = lengths;
  }

  normalize(text: string): string {
    return normalizeForm(this.op, text, this.form);
  }

  private classOf(cp: number): number {
    // ASCII: its own normalization, class 0, combining with nothing before it.
    if (cp < 0 || cp < 0x80) return ZONE_START;
    let bits = this.memo.get(cp);
    if (bits === undefined) {
      bits = (this.isZoneStart(cp) ? ZONE_START : 0) | (this.isMappedStarter(cp) ? MAPPED_STARTER : 0) | (this.isMark(cp) ? MARK : 0);
      if (this.memo.size >= 1 << 16) this.memo.clear();
      this.memo.set(cp, bits);
    }
    return bits;
  }

  /** The UTF-8 length of a mapped starter's normalization, remembered. */
  mappedLength(cp: number): number {
    let length = this.lengthMemo.get(cp);
    if (length === undefined) {
      length = utf8Length(this.normalize(String.fromCodePoint(cp)));
      if (this.lengthMemo.size >= 1 << 16) this.lengthMemo.clear();
      this.lengthMemo.set(cp, length);
    }
    return length;
  }

  startsZone = (u: Unit): boolean => (this.classOf(u.cp) & ZONE_START) !== 0;
  mappedStarter = (u: Unit): boolean => (this.classOf(u.cp) & MAPPED_STARTER) !== 0;
  mark = (u: Unit): boolean => (this.classOf(u.cp) & MARK) !== 0;

  /** Starts a zone: ICU copies it and no record crosses its start. */
  private isZoneStart(cp: number): boolean {
    const c = String.fromCodePoint(cp);
    if (this.composing) return this.normalize(c) === c && !combinesBack(cp) && this.leadsWithStarter(cp);
    return c.normalize(this.decomposed) === c && cccKind(cp) === 0;
  }

  /** Its (compatibility) decomposition starts with a class-0 code point that combines with nothing before it. */
  private leadsWithStarter(cp: number): boolean {
    const first = firstCodePoint(String.fromCodePoint(cp).normalize(this.decomposed));
    return cccKind(first) === 0 && !combinesBack(first);
  }

  /** A starter that maps to something else, its mapping led by a starter: replaced alone. */
  private isMappedStarter(cp: number): boolean {
    if (isJamo(cp) || combinesBack(cp) || !this.leadsWithStarter(cp)) return false;
    const c = String.fromCodePoint(cp);
    return c.normalize(this.decomposed) !== c;
  }

  /** A combining mark: no starter leads its decomposition (class 1 excluded when decomposing). */
  private isMark(cp: number): boolean {
    if (isJamo(cp)) return false;
    const d = String.fromCodePoint(cp).normalize(this.decomposed);
    if (cccKind(firstCodePoint(d)) === 0) return false;
    if (this.composing) return true;
    for (const ch of d) if (cccKind(firstCodePoint(ch)) !== 2) return false;
    return true;
  }
}

// A leading U+FEFF is text here, not a byte-order mark to drop.
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const textOf = (s: Uint8Array, from: number, to: number): string => utf8Decoder.decode(s.subarray(from, to));

const isJamoL = (cp: number) => cp >= 0x1100 && cp <= 0x1112;
const isJamoV = (cp: number) => cp >= 0x1161 && cp <= 0x1175;
const isJamoT = (cp: number) => cp >= 0x11a8 && cp <= 0x11c2;
const isHangulLV = (cp: number) => cp >= 0xac00 && cp <= 0xd7a3 && (cp - 0xac00) % 28 === 0;
/** A Hangul syllable spelled as conjoining jamo: L V, L V T, or LV T. */
const composesHangul = ([a, b, c, ...rest]: number[]) =>
  rest.length === 0 && ((isJamoL(a) && isJamoV(b) && (c === undefined || isJamoT(c))) || (isHangulLV(a) && isJamoT(b) && c === undefined));

/** The records of one zone: `units[0]` starts it when `headed`. */
function zoneSpans(n: Normalization, s: Uint8Array, units: Unit[], headed: boolean, normalized: Uint8Array): EditSpan[] {
  const start = units[0].start;
  const end = units[units.length - 1].end;
  const whole = end - start;
  const same = normalized.length === whole && normalized.every((b, i) => b === s[start + i]);
  if (same) return [{ kind: 'unchanged', src: whole, dst: whole }];
  const unknown: EditSpan[] = [{ kind: 'unknown', src: whole, dst: normalized.length }];
  if (n.composing && headed && composesHangul(units.map((u) => u.cp))) {
    // composeUTF8's Hangul path: L V (T) or LV T, followed by a boundary, is one replacement.
    return [{ kind: 'change', src: whole, dst: normalized.length }];
  }
  const spans = groupSpans(n, s, units, headed);
  // The records must add up to the zone's normalization, else they are not ICU's.
  if (!spans || spans.reduce((t, sp) => t + sp.dst, 0) !== normalized.length) return unknown;
  return spans;
}

/**
 * The records of a zone read as its head, marks on it, then mapped starters each with the marks
 * on it (ｶﾞﾊﾟ); null when the zone is not of that shape or a stretch cannot be told.
 */
function groupSpans(n: Normalization, s: Uint8Array, units: Unit[], headed: boolean): EditSpan[] | null {
  /** What a stretch ICU normalizes at once records: unchanged when its normalization is itself. */
  const stretch = (from: number, to: number): EditSpan => {
    const text = textOf(s, from, to);
    const out = n.normalize(text);
    return out === text ? { kind: 'unchanged', src: to - from, dst: to - from } : { kind: 'change', src: to - from, dst: utf8Length(out) };
  };
  const tail = headed ? units.slice(1) : units;
  const spans: EditSpan[] = [];
  let i = 0;
  while (i < tail.length && n.mark(tail[i])) i++;
  const head = units[0];
  if (!headed) {
    if (i > 0) spans.push(stretch(tail[0].start, tail[i - 1].end));
  } else if (i === 0) {
    spans.push(stretch(head.start, head.end));
  } else {
    if (n.composing && !hasCompBoundaryAfter(head.cp, n.form, n.decomposed)) {
      // No composition boundary after the head: the slow path backs up to it.
      spans.push(stretch(head.start, tail[i - 1].end));
    } else {
      spans.push(stretch(head.start, head.end), stretch(tail[0].start, tail[i - 1].end));
    }
  }
  while (i < tail.length) {
    const t = tail[i];
    if (!n.mappedStarter(t)) return null;
    let k = i + 1;
    while (k < tail.length && n.mark(tail[k])) k++;
    const groupEnd = tail[k - 1].end;
    if (k === i + 1) {
      spans.push({ kind: 'change', src: t.end - t.start, dst: n.mappedLength(t.cp) });
    } else {
      const lastMapped = [...String.fromCodePoint(t.cp).normalize(n.decomposed)].pop()!.codePointAt(0)!;
      if (n.composing) {
        // No composition boundary after it, or a mapping that recomposes (ICU's mapping fast
        // path not taken): composeUTF8 normalizes it with its marks in one stretch; else the
        // fast path replaces it alone and the marks follow from the boundary after it.
        const mapping = [...String.fromCodePoint(t.cp).normalize(n.decomposed)].map((ch) => ch.codePointAt(0)!);
        if (!hasCompBoundaryAfter(t.cp, n.form, n.decomposed) || mappingRecomposes(mapping)) spans.push(stretch(t.start, groupEnd));
        else spans.push({ kind: 'change', src: t.end - t.start, dst: n.mappedLength(t.cp) }, stretch(tail[i + 1].start, groupEnd));
      } else if (cccKind(lastMapped) === 0) {
        // decomposeUTF8 decomposes it alone, then its marks from the boundary after it.
        spans.push(stretch(t.start, t.end), stretch(tail[i + 1].start, groupEnd));
      } else if (cccKind(lastMapped) === 2) {
        // Its decomposition ends with a mark of class > 1: decomposeUTF8 goes on through the marks.
        spans.push(stretch(t.start, groupEnd));
      } else {
        return null;
      }
    }
    i = k;
  }
  return spans;
}

const KIND_CODES = { unchanged: 0, change: 1, unknown: 2 } as const;

/**
 * The records as int32 triples (kind, source length, destination length), adjacent unchanged
 * ones merged as ICU's iterator merges them: a string of many replacements (full-width text) is
 * 12 bytes a record, not an object.
 */
class EditsWriter {
  private words = new Int32Array(48);
  private length = 0;

  push(sp: EditSpan): void {
    const kind = KIND_CODES[sp.kind];
    if (kind === 0 && this.length && this.words[this.length - 3] === 0) {
      this.words[this.length - 2] += sp.src;
      this.words[this.length - 1] += sp.dst;
      return;
    }
    if (this.length + 3 > this.words.length) {
      const grown = new Int32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    this.words.set([kind, sp.src, sp.dst], this.length);
    this.length += 3;
  }

  finish(): Int32Array {
    return this.words.slice(0, this.length);
  }
}

/** NormalizeUTF8 of one string, with the edit records ICU makes of it (unknown where tfgate cannot tell). */
export function normalizeWithEdits(op: string, s: Uint8Array, form: Form): { output: Uint8Array; edits: OffsetsMap } {
  const n = new Normalization(op, form);
  const normalizeZone = (from: number, to: number) => normalizeBytes(s.subarray(from, to), (text) => n.normalize(text));
  const output = normalizeZone(0, s.length);
  const writer = new EditsWriter();
  // Zones are cut where normalization cannot reach across; if their outputs do not make the
  // string's, that did not hold, and nothing is known inside.
  let dst = 0;
  let consistent = true;
  const follows = (bytes: Uint8Array) => {
    if (dst + bytes.length > output.length) return false;
    for (let k = 0; k < bytes.length; k++) if (output[dst + k] !== bytes[k]) return false;
    return true;
  };
  let zone: Unit[] = [];
  let headed = false;
  const flush = () => {
    if (!zone.length || !consistent) return;
    const from = zone[0].start;
    const to = zone[zone.length - 1].end;
    // A zone start alone is its own normalization.
    const out = headed && zone.length === 1 ? s.subarray(from, to) : normalizeZone(from, to);
    if (!follows(out)) {
      consistent = false;
      return;
    }
    if (headed && zone.length === 1) writer.push({ kind: 'unchanged', src: to - from, dst: to - from });
    else for (const sp of zoneSpans(n, s, zone, headed, out)) writer.push(sp);
    dst += out.length;
  };
  for (let i = 0; i < s.length;) {
    if (s[i] < 0x80 && s[i + 1] < 0x80) {
      // A run of ASCII: each a zone start alone, but the last, which marks may follow.
      flush();
      let j = i + 1;
      while (j + 1 < s.length && s[j + 1] < 0x80) j++;
      zone = [];
      if (consistent && follows(s.subarray(i, j))) {
        writer.push({ kind: 'unchanged', src: j - i, dst: j - i });
        dst += j - i;
      } else {
        consistent = false;
      }
      i = j;
    }
    const length = sequenceLength(s, i);
    const u: Unit = { start: i, end: i + Math.max(length, 1), cp: length === 0 ? -1 : codePointAt(s, i, length) };
    i = u.end;
    if (n.startsZone(u)) {
      flush();
      zone = [u];
      headed = true;
    } else {
      zone.push(u);
    }
  }
  flush();
  if (!consistent || dst !== output.length) {
    const whole = new EditsWriter();
    if (s.length || output.length) whole.push({ kind: 'unknown', src: s.length, dst: output.length });
    return { output, edits: new OffsetsMap(whole.finish()) };
  }
  return { output, edits: new OffsetsMap(writer.finish()) };
}

/**
 * One string's edit records, as FindSourceOffsets reads them: Edits::Iterator::
 * sourceIndexFromDestinationIndex by binary search over the records' starts.
 */
export class OffsetsMap {
  private readonly dstStarts: Int32Array;
  private readonly srcStarts: Int32Array;
  private readonly totalSrc: number;
  private readonly totalDst: number;

  /** `words`: (kind, source length, destination length) triples. */
  constructor(readonly words: Int32Array) {
    const count = words.length / 3;
    this.dstStarts = new Int32Array(count);
    this.srcStarts = new Int32Array(count);
    let src = 0;
    let dst = 0;
    for (let k = 0; k < count; k++) {
      this.srcStarts[k] = src;
      this.dstStarts[k] = dst;
      src += words[3 * k + 1];
      dst += words[3 * k + 2];
    }
    this.totalSrc = src;
    this.totalDst = dst;
  }

  static fromSpans(spans: readonly EditSpan[]): OffsetsMap {
    const writer = new EditsWriter();
    for (const sp of spans) writer.push(sp);
    return new OffsetsMap(writer.finish());
  }

  /** The records as one variant element's bytes. */
  encode(): Uint8Array {
    return new Uint8Array(this.words.buffer.slice(this.words.byteOffset, this.words.byteOffset + this.words.byteLength));
  }

  /** The records of a variant element; null when the bytes are not an offsets map's. */
  static decode(bytes: Uint8Array): OffsetsMap | null {
    if (bytes.length % 12 !== 0) return null;
    const words = new Int32Array(bytes.length / 4);
    new Uint8Array(words.buffer).set(bytes);
    for (let k = 0; k < words.length; k += 3) if (words[k] < 0 || words[k] > 2 || words[k + 1] < 0 || words[k + 2] < 0) return null;
    return new OffsetsMap(words);
  }

  /**
   * Before the string 0; at or past its end the source length; at a record's start the record's
   * source start; inside an unchanged record the same distance in; inside a replacement its
   * source end. (The answer does not depend on the iterator's earlier searches: no record of
   * these normalizations is empty on the destination side.)
   */
  sourceIndex(op: string, i: number, row: number): number {
    if (i < 0) return 0;
    if (i >= this.totalDst) return this.totalSrc;
    // The last record starting at or before i.
    let lo = 0;
    let hi = this.dstStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.dstStarts[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    const dst = this.dstStarts[lo];
    const src = this.srcStarts[lo];
    const kind = this.words[3 * lo];
    if (i === dst || kind === KIND_CODES.unchanged) return src + (i - dst);
    if (kind === KIND_CODES.change) return src + this.words[3 * lo + 1];
    throw new ServingError(
      Code.UNIMPLEMENTED,
      `${op}: offset ${i} of row ${row} falls inside bytes ${dst}..${dst + this.words[3 * lo + 2]} of the normalized string (from source bytes ${src}..${src + this.words[3 * lo + 1]}), where tfgate cannot tell how ICU recorded the normalization's edits; it does not answer`,
    );
  }
}
