// A tf.Example feature as protobufjs decodes it, and its values whichever list holds them;
// shared by the dense (parse_example_op.ts) and sparse (sparse_example.ts) parsers. int64
// values are decoded as decimal strings and read as BigInt: exact over the whole int64 range
// (protobufjs's numbers would round beyond 2^53).
import { invalidArgument } from '../../../errors/status.js';
import { protoType, TO_OBJECT } from '../../../proto/index.js';

export interface FeatureObject {
  bytesList?: { value?: Uint8Array[] };
  floatList?: { value?: number[] };
  int64List?: { value?: Array<string | number> };
}

export type Kind = 'float' | 'int64' | 'bytes';
export type FeatureValue = number | bigint | Uint8Array;

/** The feature's kind and values (int64 as bigint); undefined when no list is set. */
export function featureValues(f: FeatureObject): { kind: Kind; values: FeatureValue[] } | undefined {
  if (f.floatList) return { kind: 'float', values: f.floatList.value ?? [] };
  if (f.int64List) return { kind: 'int64', values: (f.int64List.value ?? []).map((v) => BigInt(v)) };
  if (f.bytesList) return { kind: 'bytes', values: f.bytesList.value ?? [] };
  return undefined;
}

const decoder = new TextDecoder();
const EXAMPLE_OBJECT = { ...TO_OBJECT, longs: String };

/** Each serialized tf.Example's features; TF's message for bytes that are not one. */
export function decodeExamples(serialized: readonly Uint8Array[]): Array<Record<string, FeatureObject>> {
  const type = protoType('tensorflow.Example');
  return serialized.map((bytes) => {
    try {
      const ex = type.toObject(type.decode(bytes), EXAMPLE_OBJECT) as { features?: { feature?: Record<string, FeatureObject> } };
      return ex.features?.feature ?? {};
    } catch {
      throw invalidArgument(`Could not parse example input, value: '${decoder.decode(bytes.subarray(0, 64))}'`);
    }
  });
}
