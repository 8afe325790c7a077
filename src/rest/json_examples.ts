// The body of REST :classify / :regress → serialized tf.Example protos, as TF Serving's
// json_tensor builds them (FillClassifyRegressRequestFromJson, api_rest.md):
//   {"signature_name": "...", "context": {feature: value, …}, "examples": [{feature: value, …}, …]}
// A feature value is one element or a list of them; the first element sets the feature's
// kind and every later one must match it: integer literals and booleans (1/0) are int64,
// numbers written with a fraction or exponent float, strings and {"b64": …} bytes. An integer
// beyond int64 but within uint64 is refused; beyond uint64 RapidJSON reads a double (float).
// The context's features are merged into every example, as TF Serving's ExampleListWithContext
// serialization does (context first, so an example's own feature wins). The results go back
// as {"results": …} (examplesResponseJson, at the end).
import { invalidArgument } from '../errors/status.js';
import { protoType } from '../proto/index.js';
import { decodedTensorBytes } from '../tensor/tensor_cost.js';
import { isFloatMember, numberIsFloat, type JsonObject, type JsonValue } from './json_parse.js';
import { debugJson, jsonTypeString, rapidjsonString } from './rapidjson_writer.js';
import { decodeBase64Object, isBase64Object } from './base64.js';
import { formatFloat32, formatFloat64 } from './float_format.js';
import type { Classification, ExampleApi } from '../services/example_inference.js';
import * as MSG from '../errors/messages.js';
import { setOwn } from '../util/own_property.js';

const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const FLOAT32_MAX = 3.4028234663852886e38;

export interface ExampleRequest {
  signatureName?: string;
  /** One serialized tf.Example per example, context merged in. */
  serialized: Uint8Array[];
}

type Kind = 'bytes' | 'float' | 'int64';
/** A feature being filled: no kind until its first element. */
interface FeatureBuilder {
  kind?: Kind;
  values: Array<number | string | Uint8Array>;
}

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** AddValueToFeature: one element, whose kind must agree with the feature's. */
function addValue(name: string, f: FeatureBuilder, v: JsonValue, container: object, key: number | string): void {
  const add = (kind: Kind, value: number | string | Uint8Array) => {
    if (f.kind !== undefined && f.kind !== kind) throw invalidArgument(MSG.featureUnexpectedElementType(name, f.kind));
    f.kind = kind;
    f.values.push(value);
  };
  if (v === null || Array.isArray(v)) throw invalidArgument(MSG.featureUnexpectedJsonType(name, jsonTypeString(v)));
  if (typeof v === 'boolean') return add('int64', v ? 1 : 0);
  if (typeof v === 'string') return add('bytes', new TextEncoder().encode(v));
  if (typeof v === 'object') {
    if (!isBase64Object(v)) throw invalidArgument(MSG.featureUnexpectedJsonType(name, jsonTypeString(v)));
    return add('bytes', decodeBase64Object(v));
  }
  if (numberIsFloat(v, isFloatMember(container, key))) {
    const d = Number(v);
    if (Number.isFinite(d) && Math.abs(d) > FLOAT32_MAX) throw invalidArgument(MSG.lossyDecimal(formatFloat64(d), 'float'));
    return add('float', d);
  }
  const big = BigInt(v);
  if (big > UINT64_MAX) return add('float', Number(v)); // RapidJSON holds it as a double
  if (big > INT64_MAX) throw invalidArgument(MSG.featureUint64(name));
  // protobufjs takes int64 beyond 2^53 as decimal strings.
  add('int64', typeof v === 'bigint' ? v.toString() : v);
}

/** MakeExampleFromJsonObject → the features map of a tf.Example. */
function exampleFeatures(v: JsonValue): Record<string, object> {
  if (!isObject(v)) throw invalidArgument(MSG.exampleNotObject(jsonTypeString(v)));
  const out: Record<string, object> = {};
  for (const [name, content] of Object.entries(v)) {
    const f: FeatureBuilder = { values: [] };
    if (Array.isArray(content)) content.forEach((x, i) => addValue(name, f, x, content, i));
    else addValue(name, f, content, v, name);
    setOwn(out, name, f.kind === undefined ? {} : { [`${f.kind}List`]: { value: f.values } });
  }
  return out;
}

/** `charge` is told of the serialized Examples' memory: one string element each before any is written, then their bytes. */
export function parseExampleRequest(body: JsonValue, charge: (bytes: number) => void = () => {}): ExampleRequest {
  if (!isObject(body)) throw invalidArgument(MSG.isNotObject(debugJson(body)));
  const sig = body.signature_name;
  if (sig !== undefined && typeof sig !== 'string') throw invalidArgument(MSG.signatureNameNotString(debugJson(body)));
  const context = 'context' in body ? exampleFeatures(body.context) : {};
  const examples = body.examples;
  if (examples === undefined) throw invalidArgument(MSG.examplesMissing(debugJson(body)));
  if (!Array.isArray(examples)) throw invalidArgument(MSG.examplesNotList(debugJson(body)));
  if (examples.length === 0) throw invalidArgument(MSG.examplesEmpty(debugJson(body)));
  const type = protoType('tensorflow.Example');
  charge(decodedTensorBytes('string', examples.length));
  const serialized = examples.map((e) =>
    type.encode(type.fromObject({ features: { feature: { ...context, ...exampleFeatures(e) } } })).finish(),
  );
  charge(
    decodedTensorBytes(
      'string',
      0,
      serialized.reduce((n, e) => n + e.length, 0),
    ),
  );
  return { signatureName: sig, serialized };
}

/**
 * `{"results": …}`: classify [[[label, score], …], …], regress [v, …] (TF Serving's key,
 * though api_rest.md says "result"), laid out as TF Serving's RapidJSON PrettyWriter does:
 * regress on one line; classify with each example's classes on one line and the closing
 * bracket of the list on its own line, as its format option is reset before it.
 */
export function examplesResponseJson(api: ExampleApi, results: Classification[] | number[]): string {
  if (api === 'regress') return `{\n    "results": [${(results as number[]).map(formatFloat32).join(', ')}]\n}`;
  const rows = (results as Classification[]).map(
    (row) => `[${row.map(([l, s]) => `[${rapidjsonString(l)}, ${formatFloat32(s)}]`).join(', ')}]`,
  );
  return `{\n    "results": [${rows.join(', ')}\n    ]\n}`;
}
