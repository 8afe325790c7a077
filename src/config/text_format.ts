// Protobuf text format, parsed into a generic tree and then read through small schemas.
// Enough of the format for TF Serving's config files: `#` comments, `field: value`,
// `field { … }`, `field: { … }`, `field < … >`, optional `,`/`;` separators, `[a, b]` lists,
// quoted strings with C escapes (adjacent ones concatenated), identifiers for enums/bools.
// Errors carry file:line:col.

export class ConfigError extends Error {}

export interface Position {
  line: number;
  col: number;
}

export type TextScalar = { kind: 'string'; value: string; pos: Position } | { kind: 'number' | 'ident'; value: string; pos: Position };
export interface TextMessage {
  kind: 'message';
  fields: Array<{ name: string; value: TextScalar | TextMessage; pos: Position }>;
  pos: Position;
}

interface Token {
  type: 'ident' | 'number' | 'string' | 'punct' | 'eof';
  text: string;
  value: string;
  pos: Position;
}

function tokenize(text: string, file: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (): Position => ({ line, col: i - lineStart + 1 });
  const fail = (msg: string): never => {
    throw new ConfigError(`${file}:${line}:${i - lineStart + 1}: ${msg}`);
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
    } else if (/\s/.test(c)) i++;
    else if (c === '#') while (i < text.length && text[i] !== '\n') i++;
    else if (/[A-Za-z_]/.test(c)) {
      const p = pos();
      const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(text.slice(i))![0];
      tokens.push({ type: 'ident', text: m, value: m, pos: p });
      i += m.length;
    } else if (/[-+0-9.]/.test(c)) {
      const p = pos();
      const m = /^[-+]?(0[xX][0-9a-fA-F]+|(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[fF]?|inf|nan)/i.exec(text.slice(i));
      if (!m) fail(`invalid number`);
      tokens.push({ type: 'number', text: m![0], value: m![0].replace(/[fF]$/, ''), pos: p });
      i += m![0].length;
    } else if (c === '"' || c === "'") {
      const p = pos();
      let j = i + 1;
      let out = '';
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\n') fail('unterminated string');
        if (text[j] === '\\') {
          const e = text[j + 1];
          const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '?': '?' };
          if (e in simple) {
            out += simple[e];
            j += 2;
          } else if (/[0-7]/.test(e)) {
            const m = /^[0-7]{1,3}/.exec(text.slice(j + 1))![0];
            out += String.fromCharCode(parseInt(m, 8));
            j += 1 + m.length;
          } else if (e === 'x') {
            const m = /^[0-9a-fA-F]{1,2}/.exec(text.slice(j + 2));
            if (!m) fail('bad \\x escape');
            out += String.fromCharCode(parseInt(m![0], 16));
            j += 2 + m![0].length;
          } else fail(`bad escape \\${e}`);
        } else out += text[j++];
      }
      if (j >= text.length) fail('unterminated string');
      tokens.push({ type: 'string', text: text.slice(i, j + 1), value: out, pos: p });
      i = j + 1;
    } else if ('{}<>[]:,;'.includes(c)) {
      tokens.push({ type: 'punct', text: c, value: c, pos: pos() });
      i++;
    } else fail(`unexpected character '${c}'`);
  }
  tokens.push({ type: 'eof', text: '', value: '', pos: pos() });
  return tokens;
}

export function parseTextFormat(text: string, file: string): TextMessage {
  const tokens = tokenize(text, file);
  let k = 0;
  const peek = () => tokens[k];
  const fail = (t: Token, msg: string): never => {
    throw new ConfigError(`${file}:${t.pos.line}:${t.pos.col}: ${msg}`);
  };
  const expect = (text: string) => {
    const t = tokens[k++];
    if (t.text !== text) fail(t, `expected '${text}' but found ${t.type === 'eof' ? 'end of file' : `'${t.text}'`}`);
  };

  function parseScalar(): TextScalar {
    const t = tokens[k++];
    if (t.type === 'string') {
      let value = t.value;
      while (peek().type === 'string') value += tokens[k++].value;
      return { kind: 'string', value, pos: t.pos };
    }
    if (t.type === 'number') return { kind: 'number', value: t.value, pos: t.pos };
    if (t.type === 'ident') return { kind: 'ident', value: t.value, pos: t.pos };
    return fail(t, `expected a value but found ${t.type === 'eof' ? 'end of file' : `'${t.text}'`}`);
  }

  function parseFields(end: string | null, pos: Position): TextMessage {
    const msg: TextMessage = { kind: 'message', fields: [], pos };
    for (;;) {
      const t = peek();
      if (end === null ? t.type === 'eof' : t.text === end) {
        k++;
        return msg;
      }
      if (t.type === 'eof') fail(t, `expected '${end}' but found end of file`);
      if (t.type !== 'ident') fail(t, `expected a field name but found '${t.text}'`);
      k++;
      const name = t.value;
      let colon = false;
      if (peek().text === ':') {
        k++;
        colon = true;
      }
      const open = peek().text;
      if (open === '{' || open === '<') {
        k++;
        msg.fields.push({ name, value: parseFields(open === '{' ? '}' : '>', t.pos), pos: t.pos });
      } else if (open === '[') {
        k++;
        if (!colon) fail(peek(), `expected ':' before list for field '${name}'`);
        while (peek().text !== ']') {
          const p = peek();
          const value = p.text === '{' || p.text === '<' ? (k++, parseFields(p.text === '{' ? '}' : '>', p.pos)) : parseScalar();
          msg.fields.push({ name, value, pos: t.pos });
          if (peek().text === ',') k++;
          else if (peek().text !== ']') fail(peek(), `expected ',' or ']' in list for field '${name}'`);
        }
        k++;
      } else {
        if (!colon) fail(peek(), `expected ':' after field '${name}'`);
        msg.fields.push({ name, value: parseScalar(), pos: t.pos });
      }
      if (peek().text === ',' || peek().text === ';') k++;
    }
  }

  return parseFields(null, { line: 1, col: 1 });
}

/** Reading a TextMessage against expectations, with positioned errors. */
export class TextReader {
  constructor(
    readonly msg: TextMessage,
    readonly file: string,
    readonly typeName: string,
  ) {}

  fail(pos: Position, message: string): never {
    throw new ConfigError(`${this.file}:${pos.line}:${pos.col}: ${message}`);
  }

  /** Rejects fields not in `known` (TF's parser rejects unknown fields). */
  checkKnown(known: string[]): void {
    for (const f of this.msg.fields) {
      if (!known.includes(f.name)) this.fail(f.pos, `Message type "${this.typeName}" has no field named "${f.name}".`);
    }
  }

  all(name: string) {
    return this.msg.fields.filter((f) => f.name === name);
  }

  private single(name: string) {
    const all = this.all(name);
    if (all.length > 1) this.fail(all[1].pos, `Non-repeated field "${name}" is specified multiple times.`);
    return all[0];
  }

  message(name: string, typeName: string): TextReader | undefined {
    const f = this.single(name);
    if (!f) return undefined;
    if (f.value.kind !== 'message') this.fail(f.pos, `field "${name}" must be a message ({ … })`);
    return new TextReader(f.value as TextMessage, this.file, typeName);
  }

  messages(name: string, typeName: string): TextReader[] {
    return this.all(name).map((f) => {
      if (f.value.kind !== 'message') this.fail(f.pos, `field "${name}" must be a message ({ … })`);
      return new TextReader(f.value as TextMessage, this.file, typeName);
    });
  }

  private scalarOf(f: { name: string; value: TextScalar | TextMessage; pos: Position }): TextScalar {
    if (f.value.kind === 'message') this.fail(f.pos, `field "${f.name}" takes a value, not a message`);
    return f.value as TextScalar;
  }

  string(name: string): string | undefined {
    const f = this.single(name);
    if (!f) return undefined;
    const v = this.scalarOf(f);
    if (v.kind !== 'string') this.fail(v.pos, `Expected string for field "${name}", got ${v.value}`);
    return v.value;
  }

  int(name: string): number | undefined {
    const f = this.single(name);
    return f ? this.intOf(f) : undefined;
  }

  ints(name: string): number[] {
    return this.all(name).map((f) => this.intOf(f));
  }

  private intOf(f: { name: string; value: TextScalar | TextMessage; pos: Position }): number {
    const v = this.scalarOf(f);
    if (v.kind !== 'number' || !/^[-+]?(\d+|0[xX][0-9a-fA-F]+)$/.test(v.value)) this.fail(v.pos, `Expected integer for field "${f.name}", got ${v.value}`);
    return Number(v.value);
  }

  float(name: string): number | undefined {
    const f = this.single(name);
    if (!f) return undefined;
    const v = this.scalarOf(f);
    if (v.kind !== 'number' && !['inf', 'nan'].includes(v.value.toLowerCase())) this.fail(v.pos, `Expected double for field "${name}", got ${v.value}`);
    return Number(v.value);
  }

  bool(name: string): boolean | undefined {
    const f = this.single(name);
    if (!f) return undefined;
    const v = this.scalarOf(f);
    if (['true', 't', '1'].includes(v.value)) return true;
    if (['false', 'f', '0'].includes(v.value)) return false;
    return this.fail(v.pos, `Invalid value for boolean field "${name}". Value: "${v.value}".`);
  }

  /** A google.protobuf.*Value wrapper written as `field { value: N }`. */
  wrappedInt(name: string): number | undefined {
    const m = this.message(name, 'google.protobuf.Int64Value');
    if (!m) return undefined;
    m.checkKnown(['value']);
    return m.int('value') ?? 0;
  }

  wrappedBool(name: string): boolean | undefined {
    const m = this.message(name, 'google.protobuf.BoolValue');
    if (!m) return undefined;
    m.checkKnown(['value']);
    return m.bool('value') ?? false;
  }

  wrappedString(name: string): string | undefined {
    const m = this.message(name, 'google.protobuf.StringValue');
    if (!m) return undefined;
    m.checkKnown(['value']);
    return m.string('value') ?? '';
  }
}
