// Hand-written descriptors of the protobuf messages tfgate reads (TF Serving's config
// protos), and the one place where a value read from a file — text proto or YAML — is
// checked against its field and stored. Both readers build the same plain objects:
//   scalar → string | number | boolean, enum → its name, message → object,
//   repeated → array, map → Record<string, …>; unset fields are absent.
// Every stored field remembers where it was written (positionOf), so that checks made
// after parsing (unique names, batching rules …) still report file:line:col.

/** A configuration file (or flag) that cannot be used; the message starts with `file:line:col: `. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
    readonly col?: number,
    /** The proto field the error is about, when there is one. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface Position {
  line: number;
  col: number;
}

export type ScalarType = 'string' | 'bytes' | 'bool' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'float' | 'double';

export interface EnumSchema {
  name: string;
  values: Readonly<Record<string, number>>;
}

export type FieldSchema =
  | { kind: 'scalar'; type: ScalarType; repeated?: boolean; /** proto3 `optional`: no default filled in */ optional?: boolean }
  | { kind: 'enum'; enum: EnumSchema; repeated?: boolean }
  | { kind: 'message'; message: MessageSchema; repeated?: boolean }
  | { kind: 'map'; key: ScalarType; value: { kind: 'scalar'; type: ScalarType } | { kind: 'message'; message: MessageSchema } };

export interface MessageSchema {
  /** Full proto name, as libprotobuf names it in its messages. */
  name: string;
  fields: Readonly<Record<string, FieldSchema>>;
  oneofs?: Readonly<Record<string, readonly string[]>>;
  /** google.protobuf.*Value: YAML may give the bare value instead of `{value: …}`. */
  wrapper?: boolean;
  /**
   * google.protobuf.Any fields whose packed message tfgate reads, by full type name: the text
   * format's `[type.googleapis.com/NAME] { … }` is parsed with that schema and stored as
   * `{ type_url, value: <message> }`.
   */
  anyTypes?: Readonly<Record<string, MessageSchema>>;
  /**
   * A message tfgate does not model field by field (it refuses it whole when set): the text
   * reader skips its content, checking only that the braces balance.
   */
  opaque?: boolean;
}

export type ProtoValue = string | number | boolean | ProtoMessage | ProtoValue[] | { [key: string]: ProtoValue };
export interface ProtoMessage {
  [field: string]: ProtoValue;
}

// ---- field constructors, to keep the descriptors short ----

export const scalar = (type: ScalarType, opts: { repeated?: boolean; optional?: boolean } = {}): FieldSchema => ({
  kind: 'scalar',
  type,
  ...opts,
});
export const enumField = (e: EnumSchema, opts: { repeated?: boolean } = {}): FieldSchema => ({ kind: 'enum', enum: e, ...opts });
export const message = (m: MessageSchema, opts: { repeated?: boolean } = {}): FieldSchema => ({ kind: 'message', message: m, ...opts });
export const mapField = (key: ScalarType, value: ScalarType | MessageSchema): FieldSchema => ({
  kind: 'map',
  key,
  value: typeof value === 'string' ? { kind: 'scalar', type: value } : { kind: 'message', message: value },
});

const wrapperOf = (name: string, type: ScalarType): MessageSchema => ({
  name: `google.protobuf.${name}`,
  fields: { value: scalar(type) },
  wrapper: true,
});
export const Int64Value = wrapperOf('Int64Value', 'int64');
export const Int32Value = wrapperOf('Int32Value', 'int32');
export const BoolValue = wrapperOf('BoolValue', 'bool');
export const StringValue = wrapperOf('StringValue', 'string');
export const AnySchema: MessageSchema = { name: 'google.protobuf.Any', fields: { type_url: scalar('string'), value: scalar('bytes') } };
/** An Any whose packed message is one of `types` (full proto names). */
export const anyOf = (types: readonly MessageSchema[]): MessageSchema => ({
  ...AnySchema,
  anyTypes: Object.fromEntries(types.map((t) => [t.name, t])),
});
/** A message refused whole when set; its content is not read. */
export const opaqueMessage = (name: string): MessageSchema => ({ name, fields: {}, opaque: true });

// ---- where things were written ----

const positions = new WeakMap<object, Map<string, Position[]>>();
/** The key under which an object records where it itself starts. */
const SELF = '';

function recordPosition(obj: object, field: string, pos: Position): void {
  let m = positions.get(obj);
  if (!m) positions.set(obj, (m = new Map()));
  const list = m.get(field);
  if (list) list.push(pos);
  else m.set(field, [pos]);
}

/**
 * Where `field` of `obj` was written (the index-th occurrence for repeated fields), or
 * where `obj` itself starts when no field is given. Undefined for objects not parsed from a file.
 */
export function positionOf(obj: object, field: string = SELF, index = 0): Position | undefined {
  const list = positions.get(obj)?.get(field);
  return list?.[Math.min(index, list.length - 1)];
}

/** Throws a ConfigError located at `pos` (or at the file alone when pos is unknown). */
export function fail(file: string, pos: Position | undefined, detail: string, field?: string): never {
  if (!pos) throw new ConfigError(`${file}: ${detail}`, file, undefined, undefined, field);
  throw new ConfigError(`${file}:${pos.line}:${pos.col}: ${detail}`, file, pos.line, pos.col, field);
}

// ---- scalar values as the readers see them ----

/**
 * One value as written. `string`: a quoted string (text proto) or any YAML string;
 * `number`: a numeric literal; `ident`: a bare identifier (true, inf, an enum name …).
 * `num` is set when the reader already knows the numeric value (YAML).
 */
export interface RawScalar {
  kind: 'string' | 'number' | 'ident' | 'null';
  /** As written, for messages. */
  text: string;
  /** Decoded string value (kind 'string'; for YAML also plain scalars). */
  str?: string;
  num?: number;
  pos: Position;
}

const INT_RANGES: Record<'int32' | 'int64' | 'uint32' | 'uint64', [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

function parseIntLiteral(text: string): bigint | undefined {
  const m = /^(-?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/.exec(text);
  if (!m) return undefined;
  const digits = m[2];
  const magnitude = /^0[xX]/.test(digits)
    ? BigInt(digits)
    : digits.length > 1 && digits[0] === '0'
      ? BigInt(`0o${digits.slice(1)}`)
      : BigInt(digits);
  return m[1] ? -magnitude : magnitude;
}

function parseFloatLiteral(text: string): number | undefined {
  const t = text.replace(/^-/, '');
  const sign = text.startsWith('-') ? -1 : 1;
  if (/^(inf|infinity)$/i.test(t)) return sign * Infinity;
  if (/^nan$/i.test(t)) return NaN;
  if (/^(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)[fF]?$/.test(t)) return sign * Number(t.replace(/[fF]$/, ''));
  const asInt = parseIntLiteral(text);
  return asInt === undefined ? undefined : Number(asInt);
}

/** Converts one written value to the field's type, or fails naming the field. */
export function convertScalar(
  file: string,
  field: string,
  type: ScalarType,
  raw: RawScalar,
  lenientStrings: boolean,
): string | number | boolean {
  const bad = (what: string): never => fail(file, raw.pos, `Expected ${what} for field "${field}", got: ${raw.text}`, field);
  switch (type) {
    case 'string':
    case 'bytes':
      if (raw.kind === 'string' || (lenientStrings && raw.kind === 'ident' && raw.str !== undefined)) return raw.str!;
      return bad('string');
    case 'bool': {
      if (raw.kind === 'ident' || raw.kind === 'number') {
        if (['true', 't', 'True', '1'].includes(raw.text)) return true;
        if (['false', 'f', 'False', '0'].includes(raw.text)) return false;
      }
      return fail(file, raw.pos, `Invalid value for boolean field "${field}". Value: "${raw.text}".`, field);
    }
    case 'float':
    case 'double': {
      if (raw.kind === 'number' || raw.kind === 'ident') {
        const v = raw.num ?? parseFloatLiteral(raw.text);
        if (v !== undefined) return v;
      }
      return bad('double');
    }
    default: {
      let v: bigint | undefined;
      if (raw.kind === 'number') {
        if (raw.num !== undefined) v = Number.isInteger(raw.num) && Number.isFinite(raw.num) ? BigInt(raw.num) : undefined;
        else v = parseIntLiteral(raw.text);
      }
      if (v === undefined) return bad('integer');
      const [lo, hi] = INT_RANGES[type];
      if (v < lo || v > hi) fail(file, raw.pos, `Integer out of range (${raw.text}) for field "${field}" (${type})`, field);
      if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
        fail(
          file,
          raw.pos,
          `Integer out of range (${raw.text}) for field "${field}": tfgate holds ${type} values as JavaScript numbers, at most 2^53-1 in magnitude`,
          field,
        );
      }
      return Number(v);
    }
  }
}

export function convertEnum(file: string, field: string, e: EnumSchema, raw: RawScalar): string {
  if (raw.kind === 'ident' && raw.text in e.values) return raw.text;
  if (raw.kind === 'number') {
    const n = raw.num ?? Number(parseIntLiteral(raw.text));
    const name = Object.keys(e.values).find((k) => e.values[k] === n);
    if (name) return name;
  }
  return fail(file, raw.pos, `Unknown enumeration value of "${raw.text}" for field "${field}".`, field);
}

// ---- storing fields: repeated / non-repeated / oneof / map rules, shared by both readers ----

export class MessageBuilder {
  readonly value: ProtoMessage = {};
  constructor(
    readonly schema: MessageSchema,
    readonly file: string,
    pos: Position,
  ) {
    recordPosition(this.value, SELF, pos);
  }

  /** The field's descriptor, or the libprotobuf error for an unknown field. */
  field(name: string, pos: Position): FieldSchema {
    const f = Object.prototype.hasOwnProperty.call(this.schema.fields, name) ? this.schema.fields[name] : undefined;
    if (!f) fail(this.file, pos, `Message type "${this.schema.name}" has no field named "${name}".`, name);
    return f;
  }

  /** Stores one occurrence of a field (one element, for repeated fields). */
  add(name: string, f: FieldSchema, v: ProtoValue, pos: Position): void {
    const repeated = f.kind === 'map' || ('repeated' in f && f.repeated);
    this.checkOneof(name, pos);
    if (!repeated) {
      if (name in this.value) fail(this.file, pos, `Non-repeated field "${name}" is specified multiple times.`, name);
      this.value[name] = v;
    } else if (f.kind === 'map') {
      const entry = v as ProtoMessage;
      const key = String(entry.key);
      const keyPos = positionOf(entry, 'key') ?? pos;
      const map = (this.value[name] ??= {}) as Record<string, ProtoValue>;
      if (Object.prototype.hasOwnProperty.call(map, key))
        fail(this.file, keyPos, `Map field "${name}" has key "${key}" more than once.`, name);
      map[key] = entry.value;
      recordPosition(map, key, keyPos);
    } else {
      ((this.value[name] ??= []) as ProtoValue[]).push(v);
    }
    recordPosition(this.value, name, pos);
  }

  /** A repeated field written as an empty list still counts as written. */
  private checkOneof(name: string, pos: Position): void {
    for (const [oneof, members] of Object.entries(this.schema.oneofs ?? {})) {
      if (!members.includes(name)) continue;
      const other = members.find((m) => m !== name && m in this.value);
      if (other)
        fail(this.file, pos, `Field "${name}" is specified along with field "${other}", another member of oneof "${oneof}".`, name);
    }
  }

  touch(name: string, f: FieldSchema, pos: Position): void {
    this.checkOneof(name, pos);
    if (f.kind === 'map') this.value[name] ??= {};
    else this.value[name] ??= [];
  }
}

/** The default of a map entry's key or value when the entry leaves it out. */
function scalarDefault(type: ScalarType): string | number | boolean {
  return type === 'string' || type === 'bytes' ? '' : type === 'bool' ? false : 0;
}

/** A map entry message `{ key: …, value: … }` for a map field's descriptor. */
export function mapEntrySchema(owner: MessageSchema, name: string, f: Extract<FieldSchema, { kind: 'map' }>): MessageSchema {
  const entryName = name.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase()) + 'Entry';
  return {
    name: `${owner.name}.${entryName}`,
    fields: { key: scalar(f.key), value: f.value.kind === 'scalar' ? scalar(f.value.type) : message(f.value.message) },
  };
}

/** Fills key/value defaults of a parsed map entry. */
export function completeMapEntry(f: Extract<FieldSchema, { kind: 'map' }>, entry: ProtoMessage): ProtoMessage {
  if (!('key' in entry)) entry.key = scalarDefault(f.key);
  if (!('value' in entry)) entry.value = f.value.kind === 'scalar' ? scalarDefault(f.value.type) : {};
  return entry;
}

/**
 * proto3 defaults for every unset scalar, enum, repeated and map field of `msg` and,
 * recursively, of the messages it holds (unset message fields stay absent).
 */
export function withDefaults(schema: MessageSchema, msg: ProtoMessage): ProtoMessage {
  const out: ProtoMessage = {};
  for (const [name, f] of Object.entries(schema.fields)) {
    const v = msg[name];
    if (f.kind === 'map') out[name] = v ?? {};
    else if (f.repeated)
      out[name] = f.kind === 'message' ? ((v as ProtoMessage[] | undefined) ?? []).map((m) => withDefaults(f.message, m)) : (v ?? []);
    else if (f.kind === 'message') {
      if (v !== undefined) out[name] = withDefaults(f.message, v as ProtoMessage);
    } else if (f.kind === 'enum') out[name] = v ?? Object.keys(f.enum.values).find((k) => f.enum.values[k] === 0) ?? '';
    else if (v !== undefined) out[name] = v;
    else if (!f.optional) out[name] = scalarDefault(f.type);
  }
  return out;
}

/** Freezes an object graph in place and returns it. */
export function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
