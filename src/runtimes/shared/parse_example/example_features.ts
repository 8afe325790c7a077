// A tf.Example feature as protobufjs decodes it, and its values whichever list holds them;
// shared by the dense (parse_example_op.ts) and sparse (sparse_example.ts) parsers.
export interface FeatureObject {
  bytesList?: { value?: Uint8Array[] };
  floatList?: { value?: number[] };
  int64List?: { value?: number[] };
}

export type Kind = 'float' | 'int64' | 'bytes';

/** The feature's kind and values; undefined when no list is set. */
export function featureValues(f: FeatureObject): { kind: Kind; values: Array<number | Uint8Array> } | undefined {
  if (f.floatList) return { kind: 'float', values: f.floatList.value ?? [] };
  if (f.int64List) return { kind: 'int64', values: f.int64List.value ?? [] };
  if (f.bytesList) return { kind: 'bytes', values: f.bytesList.value ?? [] };
  return undefined;
}
