// The body of REST :classify / :regress → serialized tf.Example protos, as TF Serving's
// json_tensor builds them (api_rest.md):
//   {"signature_name": "...", "context": {feature: value, …}, "examples": [{feature: value, …}, …]}
// A feature value is a number, a string, {"b64": "..."} or a list of one kind of those.
// Integer literals make an int64_list, numbers written with a fraction or exponent a
// float_list (a list holding both is a float_list), strings and b64 values a bytes_list. The
// context's features are merged into every example; an example's own feature wins.
import { invalidArgument } from '../core/status.js';
import { protoType } from '../proto/index.js';
import { isFloatMember, numberIsFloat, type JsonObject, type JsonValue } from './json_parse.js';
import { base64Unescape } from './json_tensor.js';

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

export interface ExampleRequest {
  signatureName?: string;
  /** One serialized tf.Example per example, context merged in. */
  serialized: Uint8Array[];
}

type Feature = { floatList: { value: number[] } } | { int64List: { value: Array<number | string> } } | { bytesList: { value: Uint8Array[] } };

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One scalar of a feature: its kind and value. `container`/`key` locate it for the float marks. */
function scalar(name: string, v: JsonValue, container: object, key: number | string): { kind: 'float' | 'int64' | 'bytes'; value: number | bigint | Uint8Array } {
  if (typeof v === 'number' || typeof v === 'bigint') {
    if (numberIsFloat(v, isFloatMember(container, key))) return { kind: 'float', value: Number(v) };
    const big = BigInt(v);
    if (big > INT64_MAX || big < INT64_MIN) throw invalidArgument(`Only int64 is supported in tf.Example features; feature '${name}' holds ${big}, out of range`);
    return { kind: 'int64', value: v };
  }
  if (typeof v === 'string') return { kind: 'bytes', value: new TextEncoder().encode(v) };
  if (isObject(v) && Object.keys(v).length === 1 && typeof v.b64 === 'string') {
    const bytes = base64Unescape(v.b64);
    if (!bytes) throw invalidArgument(`Unable to base64 decode the value of feature '${name}'`);
    return { kind: 'bytes', value: bytes };
  }
  throw invalidArgument(`Feature '${name}' must be a number, a string, {"b64": …} or a list of those; got ${JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x))}`);
}

function feature(name: string, v: JsonValue, container: object, key: string): Feature {
  const items = Array.isArray(v) ? v.map((x, i) => scalar(name, x, v, i)) : [scalar(name, v, container, key)];
  if (items.length === 0) throw invalidArgument(`Feature '${name}' is an empty list: its type cannot be told`);
  const bytes = items.filter((x) => x.kind === 'bytes').length;
  if (bytes && bytes !== items.length) throw invalidArgument(`Feature '${name}' mixes strings and numbers; a tf.Example feature holds one kind`);
  if (bytes) return { bytesList: { value: items.map((x) => x.value as Uint8Array) } };
  if (items.some((x) => x.kind === 'float')) return { floatList: { value: items.map((x) => Number(x.value)) } };
  // protobufjs takes int64 beyond 2^53 as decimal strings.
  return { int64List: { value: items.map((x) => (typeof x.value === 'bigint' ? x.value.toString() : (x.value as number))) } };
}

function features(obj: JsonObject): Record<string, Feature> {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, feature(k, v, obj, k)]));
}

export function parseExampleRequest(body: JsonValue): ExampleRequest {
  if (!isObject(body)) throw invalidArgument('Request body must be a JSON object');
  const sig = body.signature_name;
  if (sig !== undefined && typeof sig !== 'string') throw invalidArgument("'signature_name' key must be a string");
  const examples = body.examples;
  if (!Array.isArray(examples)) throw invalidArgument("Request body must hold an 'examples' key with a list of examples");
  const context = body.context === undefined ? {} : isObject(body.context) ? features(body.context) : undefined;
  if (!context) throw invalidArgument("'context' must be a JSON object of features");
  const type = protoType('tensorflow.Example');
  const serialized = examples.map((e, i) => {
    if (!isObject(e)) throw invalidArgument(`Example ${i} must be a JSON object of features`);
    const message = type.fromObject({ features: { feature: { ...context, ...features(e) } } });
    return type.encode(message).finish();
  });
  return { signatureName: sig, serialized };
}
