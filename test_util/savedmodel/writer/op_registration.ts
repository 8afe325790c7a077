// An OpDef from TensorFlow's own registration text, pasted as TF writes it in
// tensorflow/core/ops/<family>_ops.cc (read it with the search tool's read_file):
//
//   REGISTER_OP("StringJoin")
//       .Input("inputs: N * string")
//       .Attr("N: int >= 0")
//       .Attr("separator: string = ''")
//       .Output("output: string")
//
// gives the OpDef TF's op_def_builder.cc builds from it (what stripped_op_list holds), so an
// op case needs no OpDef copied by hand. Shape functions and docs are ignored (paste them or
// not). The grammar is op_def_builder's:
//   arg:  `name: type` | `name: T` (a type attr) | `name: N * type|T` | `name: Tlist` (a list(type)
//         attr) | `name: Ref(…)`
//   attr: `name: int|float|bool|string|type|shape|tensor|func|list(…)` or a set
//         (`{float, int32}`, `{'BYTE', 'UTF8_CHAR'}`, `numbertype` …), then `>= min`, then `= default`.
import { DATA_TYPE_NAMES } from '../../../src/savedmodel/graph/op_registry.js';
import type { ArgDefInit, AttrDefInit, OpDefInit } from './op_defs.js';

/** TF's named type sets (op_def_builder.cc, types.h), in TF's order. */
const TYPE_SETS: Record<string, string[]> = {
  realnumbertype: ['float', 'double', 'int32', 'uint8', 'int16', 'int8', 'int64', 'bfloat16', 'uint16', 'half', 'uint32', 'uint64'],
  numbertype: [
    'float',
    'double',
    'int32',
    'uint8',
    'int16',
    'int8',
    'complex64',
    'int64',
    'qint8',
    'quint8',
    'qint32',
    'bfloat16',
    'qint16',
    'quint16',
    'uint16',
    'complex128',
    'half',
    'uint32',
    'uint64',
  ],
  quantizedtype: ['qint8', 'quint8', 'qint32', 'qint16', 'quint16'],
};

const SCALAR_ATTR_TYPES = new Set(['int', 'float', 'bool', 'string', 'type', 'shape', 'tensor', 'func']);

/** Names DataTypeFromString also accepts (types.cc): spectral_ops.cc writes `{float32, float64}`. */
const TYPE_ALIASES: Record<string, string> = { float32: 'float', float64: 'double' };
const dt = (name: string) => `DT_${(TYPE_ALIASES[name] ?? name).toUpperCase()}`;
const enc = new TextEncoder();

function fail(op: string, what: string): never {
  throw new Error(`REGISTER_OP("${op}"): cannot read ${what}`);
}

/** Types of a `{…}` set or a named set, as DT_ names. */
function typeSet(op: string, expr: string): string[] {
  const items = expr.startsWith('{')
    ? expr
        .slice(1, -1)
        .split(',')
        .map((s) => s.trim())
    : [expr];
  return items.flatMap((t) => TYPE_SETS[t] ?? (DATA_TYPE_NAMES.has(TYPE_ALIASES[t] ?? t) ? [t] : fail(op, `type ${t}`))).map(dt);
}

function unquote(op: string, s: string): string {
  const m = /^(['"])(.*)\1$/.exec(s.trim());
  if (!m) fail(op, `string ${s}`);
  return m[2].replace(/\\(.)/g, '$1');
}

function defaultValue(op: string, type: string, text: string): Record<string, unknown> {
  const t = text.trim();
  const list = (parse: (x: string) => unknown) => {
    const inner = t.replace(/^\[|\]$/g, '').trim();
    return inner ? inner.split(',').map((x) => parse(x.trim())) : [];
  };
  switch (type) {
    case 'int':
      return { i: Number.parseInt(t, 10) };
    case 'float':
      return { f: Number.parseFloat(t) };
    case 'bool':
      return { b: t === 'true' };
    case 'string':
      return { s: enc.encode(unquote(op, t)) };
    case 'type':
      return { type: t.startsWith('DT_') ? t : dt(t) };
    case 'list(int)':
    case 'list(float)':
    case 'list(string)':
    case 'list(type)': {
      const key = { 'list(int)': 'i', 'list(float)': 'f', 'list(string)': 's', 'list(type)': 'type' }[type];
      const values = list((x) =>
        key === 's' ? enc.encode(unquote(op, x)) : key === 'type' ? (x.startsWith('DT_') ? x : dt(x)) : Number(x),
      );
      return { list: values.length ? { [key]: values } : {} };
    }
    default:
      return fail(op, `a default for an attr of type ${type}`);
  }
}

function parseAttr(op: string, spec: string): AttrDefInit {
  const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$/.exec(spec);
  if (!m) fail(op, `attr "${spec}"`);
  const [, name, rest] = m;
  // `= default` is the first '=' not part of '>='.
  const eq = rest.search(/(?<![>=!<])=(?!=)/);
  let typeExpr = (eq < 0 ? rest : rest.slice(0, eq)).trim();
  const dflt = eq < 0 ? undefined : rest.slice(eq + 1);
  let minimum: number | undefined;
  const min = /\s*>=\s*(-?\d+)$/.exec(typeExpr);
  if (min) {
    minimum = Number(min[1]);
    typeExpr = typeExpr.slice(0, min.index).trim();
  }
  const attr: AttrDefInit = { name, type: typeExpr };
  const listOf = /^list\((.*)\)$/.exec(typeExpr);
  const inner = listOf ? listOf[1].trim() : typeExpr;
  if (inner.startsWith('{') && inner.includes("'")) {
    attr.type = listOf ? 'list(string)' : 'string';
    attr.allowedValues = {
      list: {
        s: inner
          .slice(1, -1)
          .split(',')
          .map((s) => enc.encode(unquote(op, s))),
      },
    };
  } else if (inner.startsWith('{') || TYPE_SETS[inner]) {
    attr.type = listOf ? 'list(type)' : 'type';
    attr.allowedValues = { list: { type: typeSet(op, inner) } };
  } else if (!SCALAR_ATTR_TYPES.has(inner)) fail(op, `attr type ${typeExpr}`);
  if (dflt !== undefined) attr.defaultValue = defaultValue(op, attr.type, dflt);
  if (minimum !== undefined) {
    attr.hasMinimum = true;
    if (minimum !== 0) attr.minimum = minimum;
  }
  return attr;
}

/** An input or output arg; `type` is a dtype name or an attr's name, resolved once every attr is known. */
function parseArg(op: string, spec: string): ArgDefInit & { typeName: string } {
  const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s*\*\s*)?(Ref\(\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*\)?\s*$/.exec(
    spec,
  );
  if (!m) fail(op, `arg "${spec}"`);
  const [, name, numberAttr, ref, typeName] = m;
  return { name, typeName, ...(numberAttr ? { numberAttr } : {}), ...(ref ? { isRef: true } : {}) };
}

/** The OpDef of one `REGISTER_OP("…")…;` block. */
export function opDefFromRegistration(text: string): OpDefInit {
  const op = /REGISTER_OP\(\s*"([A-Za-z0-9_>]+)"\s*\)/.exec(text)?.[1] ?? fail('?', 'the op name');
  const inputs: Array<ArgDefInit & { typeName: string }> = [];
  const outputs: Array<ArgDefInit & { typeName: string }> = [];
  const attrs: AttrDefInit[] = [];
  const def: OpDefInit = { name: op };
  // A spec may be split into adjacent C++ literals ("T: {int8, " "int16}"): they are joined.
  for (const m of text.matchAll(
    /\.(Input|Output|Attr)\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\)|\.(SetIsStateful|SetIsCommutative|SetIsAggregate|SetAllowsUninitializedInput)\(\s*\)/g,
  )) {
    const spec = m[2] && [...m[2].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((l) => l[1]).join('');
    if (m[1] === 'Input') inputs.push(parseArg(op, spec));
    else if (m[1] === 'Output') outputs.push(parseArg(op, spec));
    else if (m[1] === 'Attr') attrs.push(parseAttr(op, spec));
    else if (m[3] === 'SetIsStateful') def.isStateful = true;
    else if (m[3] === 'SetIsCommutative') def.isCommutative = true;
    else if (m[3] === 'SetIsAggregate') def.isAggregate = true;
    else def.allowsUninitializedInput = true;
  }
  const byName = new Map(attrs.map((a) => [a.name, a]));
  const resolve = ({ typeName, ...arg }: ArgDefInit & { typeName: string }): ArgDefInit => {
    if (arg.numberAttr) {
      const n = byName.get(arg.numberAttr) ?? fail(op, `arg ${arg.name}: no attr ${arg.numberAttr}`);
      // op_def_builder: a length attr without `>= n` gets minimum 1.
      if (!n.hasMinimum) Object.assign(n, { hasMinimum: true, minimum: 1 });
    }
    if (DATA_TYPE_NAMES.has(typeName)) return { ...arg, type: dt(typeName) };
    const attr = byName.get(typeName) ?? fail(op, `arg ${arg.name}: no attr ${typeName}`);
    return attr.type === 'list(type)' ? { ...arg, typeListAttr: typeName } : { ...arg, typeAttr: typeName };
  };
  if (inputs.length) def.inputArg = inputs.map(resolve);
  if (outputs.length) def.outputArg = outputs.map(resolve);
  if (attrs.length) def.attr = attrs;
  return def;
}
