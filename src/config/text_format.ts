// Protobuf text format (what TF Serving's ParseProtoTextFile reads), driven by the
// descriptors in schema.ts. Covers what TF Serving's config files use and a little more:
//   # comments; `field: value`; `field { … }`, `field: { … }`, `field < … >`;
//   `,` or `;` after any field; repeated fields as repeated entries or `field: [a, b]`
//   (also lists of messages); map fields as repeated `{ key: … value: … }` entries;
//   strings in '…' or "…" with C escapes (\n \t \\ \' \" \ooo \xHH \uXXXX …), adjacent
//   strings concatenated; enums by name or number; ints (decimal, 0x…, 0…octal),
//   floats (1, 1.5, 1e3, 1.5f, inf, nan), bools (true/false/t/f/True/False/1/0).
// Errors are ConfigErrors `file:line:col: …` naming the field, in libprotobuf's words
// where it has them ("Message type "X" has no field named "y".").
import {
  completeMapEntry,
  convertEnum,
  convertScalar,
  fail,
  mapEntrySchema,
  MessageBuilder,
  type FieldSchema,
  type MessageSchema,
  type Position,
  type ProtoMessage,
  type ProtoValue,
  type RawScalar,
} from './schema.js';

export { ConfigError } from './schema.js';

interface Token {
  /** typeUrl: `[type.googleapis.com/pkg.Message]`, an Any's expanded form (value: the URL). */
  type: 'ident' | 'number' | 'string' | 'punct' | 'typeUrl' | 'eof';
  /** As written. */
  text: string;
  /** Decoded value of a string token. */
  value: string;
  pos: Position;
}

const SIMPLE_ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, '\\': 92, "'": 39, '"': 34, a: 7, b: 8, f: 12, v: 11, '?': 63 };
const utf8 = new TextEncoder();

function tokenize(text: string, file: string): Token[] {
  const tokens: Token[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let lineStart = i;
  const pos = (at = i): Position => ({ line, col: at - lineStart + 1 });
  const failAt = (at: number, msg: string): never => fail(file, pos(at), msg);
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') i++;
    else if (c === '#') while (i < text.length && text[i] !== '\n') i++;
    else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 1024))![0];
      tokens.push({ type: 'ident', text: m, value: m, pos: pos() });
      i += m.length;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const m = /^(0[xX][0-9a-fA-F]+|(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[fF]?)/.exec(text.slice(i, i + 1024))![0];
      const next = text[i + m.length] ?? '';
      if (/[A-Za-z0-9_.]/.test(next)) failAt(i, `Invalid number: ${text.slice(i, i + m.length + 1)}…`);
      tokens.push({ type: 'number', text: m, value: m, pos: pos() });
      i += m.length;
    } else if (c === '"' || c === "'") {
      const start = i;
      const bytes: number[] = [];
      let j = i + 1;
      for (;;) {
        if (j >= text.length || text[j] === '\n') failAt(start, 'String literal is not terminated on its line.');
        const ch = text[j];
        if (ch === c) break;
        if (ch !== '\\') {
          const cp = text.codePointAt(j)!;
          bytes.push(...utf8.encode(String.fromCodePoint(cp)));
          j += cp > 0xffff ? 2 : 1;
          continue;
        }
        const e = text[j + 1] ?? '';
        let m: RegExpExecArray | null;
        if (e in SIMPLE_ESCAPES) {
          bytes.push(SIMPLE_ESCAPES[e]);
          j += 2;
        } else if ((m = /^[0-7]{1,3}/.exec(text.slice(j + 1, j + 4)))) {
          bytes.push(parseInt(m[0], 8) & 0xff);
          j += 1 + m[0].length;
        } else if (e === 'x' && (m = /^[0-9a-fA-F]{1,2}/.exec(text.slice(j + 2, j + 4)))) {
          bytes.push(parseInt(m[0], 16));
          j += 2 + m[0].length;
        } else if (
          (e === 'u' && (m = /^[0-9a-fA-F]{4}/.exec(text.slice(j + 2, j + 6)))) ||
          (e === 'U' && (m = /^[0-9a-fA-F]{8}/.exec(text.slice(j + 2, j + 10))))
        ) {
          const cp = parseInt(m[0], 16);
          if (cp > 0x10ffff) failAt(j, `Invalid escape sequence in string literal: \\${e}${m[0]}`);
          bytes.push(...utf8.encode(String.fromCodePoint(cp)));
          j += 2 + m[0].length;
        } else failAt(j, `Invalid escape sequence in string literal: \\${e}`);
      }
      const value = new TextDecoder('utf-8', { fatal: false }).decode(new Uint8Array(bytes));
      tokens.push({ type: 'string', text: text.slice(start, j + 1), value, pos: pos(start) });
      i = j + 1;
    } else if (c === '[' && /^\[\s*[A-Za-z0-9_.-]+\/[A-Za-z0-9_./-]+\s*\]/.test(text.slice(i, i + 512))) {
      const m = /^\[\s*([A-Za-z0-9_.-]+\/[A-Za-z0-9_./-]+)\s*\]/.exec(text.slice(i, i + 512))!;
      tokens.push({ type: 'typeUrl', text: m[0], value: m[1], pos: pos() });
      i += m[0].length;
    } else if ('{}<>[]:,;-'.includes(c)) {
      tokens.push({ type: 'punct', text: c, value: c, pos: pos() });
      i++;
    } else failAt(i, `Unexpected character '${c}'`);
  }
  tokens.push({ type: 'eof', text: '', value: '', pos: pos() });
  return tokens;
}

const describe = (t: Token) => (t.type === 'eof' ? 'end of file' : t.type === 'string' ? t.text : `"${t.text}"`);

class TextParser {
  private k = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly file: string,
  ) {}

  private peek(): Token {
    return this.tokens[this.k];
  }
  private next(): Token {
    return this.tokens[this.k++];
  }
  private tryConsume(text: string): boolean {
    const t = this.peek();
    if (t.type !== 'punct' || t.text !== text) return false;
    this.k++;
    return true;
  }

  /** Fields up to `end` ('}' or '>'), or to end of file for the top level. */
  parseMessage(schema: MessageSchema, pos: Position, end: { close: string; name: string; open: Position } | null): ProtoMessage {
    const b = new MessageBuilder(schema, this.file, pos);
    if (schema.opaque) {
      this.skipTo(end);
      return b.value;
    }
    for (;;) {
      const t = this.peek();
      if (end ? t.type === 'punct' && t.text === end.close : t.type === 'eof') {
        this.k++;
        return b.value;
      }
      if (t.type === 'eof') {
        fail(
          this.file,
          t.pos,
          `Expected "${end!.close}" to close field "${end!.name}" opened at ${end!.open.line}:${end!.open.col}, found end of file.`,
          end!.name,
        );
      }
      if (t.type === 'typeUrl' && schema.anyTypes) {
        this.parseAnyExpansion(b, schema.anyTypes, t);
        continue;
      }
      if (t.type === 'typeUrl') fail(this.file, t.pos, `Any-expansion ${t.text} is not supported here.`);
      if (t.type === 'punct' && t.text === '[') fail(this.file, t.pos, 'Extension and Any-expansion fields ([…]) are not supported.');
      if (t.type !== 'ident') fail(this.file, t.pos, `Expected a field name, found ${describe(t)}.`);
      this.k++;
      const f = b.field(t.text, t.pos);
      this.parseField(b, t.text, f, t.pos);
      if (!this.tryConsume(';')) this.tryConsume(',');
    }
  }

  /** `[type.googleapis.com/NAME] { … }` inside an Any: the packed message, read with its schema. */
  private parseAnyExpansion(b: MessageBuilder, types: Readonly<Record<string, MessageSchema>>, t: Token): void {
    this.k++;
    const typeName = t.value.slice(t.value.lastIndexOf('/') + 1);
    const schema = types[typeName];
    if (!schema)
      fail(
        this.file,
        t.pos,
        `Any type "${typeName}" is not one tfgate reads here (expected ${Object.keys(types).join(' or ')}).`,
        'type_url',
      );
    if ('type_url' in b.value) fail(this.file, t.pos, 'An Any holds one message; a second expansion was found.', 'type_url');
    this.tryConsume(':');
    const open = this.next();
    if (open.type !== 'punct' || (open.text !== '{' && open.text !== '<'))
      fail(this.file, open.pos, `Expected "{" to open ${t.text}, found ${describe(open)}.`);
    const value = this.parseMessage(schema, t.pos, { close: open.text === '{' ? '}' : '>', name: t.text, open: open.pos });
    b.add('type_url', { kind: 'scalar', type: 'string' }, t.value, t.pos);
    b.value.value = value;
  }

  /** Skips an opaque message's content up to and including its closing delimiter. */
  private skipTo(end: { close: string; name: string; open: Position } | null): void {
    let depth = 0;
    for (;;) {
      const t = this.next();
      if (t.type === 'eof') {
        if (!end) return;
        fail(
          this.file,
          t.pos,
          `Expected "${end.close}" to close field "${end.name}" opened at ${end.open.line}:${end.open.col}, found end of file.`,
          end.name,
        );
      }
      if (t.type !== 'punct') continue;
      if (t.text === '{' || t.text === '<') depth++;
      else if (t.text === '}' || t.text === '>') {
        if (depth === 0) return;
        depth--;
      }
    }
  }

  private parseField(b: MessageBuilder, name: string, f: FieldSchema, namePos: Position): void {
    const isMessage = f.kind === 'message' || f.kind === 'map';
    const colon = this.tryConsume(':');
    if (!colon && !isMessage) fail(this.file, this.peek().pos, `Expected ":" after field "${name}", found ${describe(this.peek())}.`, name);
    const repeated = f.kind === 'map' || ('repeated' in f && f.repeated);
    if (this.peek().type === 'punct' && this.peek().text === '[') {
      if (!repeated) fail(this.file, this.peek().pos, `Field "${name}" is not repeated; a [list] is not allowed.`, name);
      this.k++;
      b.touch(name, f, namePos);
      if (this.tryConsume(']')) return;
      for (;;) {
        this.parseValue(b, name, f, this.peek().pos);
        if (this.tryConsume(']')) return;
        if (!this.tryConsume(','))
          fail(this.file, this.peek().pos, `Expected "," or "]" in the list of field "${name}", found ${describe(this.peek())}.`, name);
      }
    }
    this.parseValue(b, name, f, namePos);
  }

  private parseValue(b: MessageBuilder, name: string, f: FieldSchema, namePos: Position): void {
    const t = this.peek();
    if (f.kind === 'message' || f.kind === 'map') {
      if (t.type !== 'punct' || (t.text !== '{' && t.text !== '<'))
        fail(this.file, t.pos, `Expected "{" to open message field "${name}", found ${describe(t)}.`, name);
      this.k++;
      const end = { close: t.text === '{' ? '}' : '>', name, open: t.pos };
      if (f.kind === 'message') {
        b.add(name, f, this.parseMessage(f.message, namePos, end), namePos);
      } else {
        const entry = this.parseMessage(mapEntrySchema(b.schema, name, f), namePos, end);
        b.add(name, f, completeMapEntry(f, entry), namePos);
      }
      return;
    }
    const raw = this.scalar(name);
    const v: ProtoValue =
      f.kind === 'enum' ? convertEnum(this.file, name, f.enum, raw) : convertScalar(this.file, name, f.type, raw, false);
    b.add(name, f, v, namePos);
  }

  private scalar(field: string): RawScalar {
    const t = this.next();
    if (t.type === 'string') {
      let str = t.value;
      let text = t.text;
      while (this.peek().type === 'string') {
        const s = this.next();
        str += s.value;
        text += ` ${s.text}`;
      }
      return { kind: 'string', text, str, pos: t.pos };
    }
    if (t.type === 'punct' && t.text === '-') {
      const n = this.next();
      if (n.type === 'number' || n.type === 'ident') return { kind: n.type, text: `-${n.text}`, pos: t.pos };
      fail(this.file, n.pos, `Expected a number after "-" for field "${field}", found ${describe(n)}.`, field);
    }
    if (t.type === 'number' || t.type === 'ident') return { kind: t.type, text: t.text, pos: t.pos };
    return fail(this.file, t.pos, `Expected a value for field "${field}", found ${describe(t)}.`, field);
  }
}

/**
 * Parses `text` as a text-format `schema` message. `file` names the source in errors.
 * The result holds only the fields written (no defaults); positionOf() tells where each was.
 */
export function parseTextProto(text: string, file: string, schema: MessageSchema): ProtoMessage {
  const tokens = tokenize(text, file);
  return new TextParser(tokens, file).parseMessage(schema, { line: 1, col: 1 }, null);
}
