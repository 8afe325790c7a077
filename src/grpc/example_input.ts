// tensorflow.serving.Input → serialized tf.Example strings, as TF Serving feeds them to a
// classify/regress signature. With ExampleListWithContext, TF Serving writes the context's
// bytes and then the example's (servables/tensorflow/util.cc), which a protobuf parser reads
// as one Example with both feature maps merged, the example's own entry winning on a shared
// name. tfgate merges the maps itself and writes that Example: the graph gets the same
// features, whatever parser runs ParseExample.
import { invalidArgument } from '../errors/status.js';
import * as MSG from '../core/messages.js';
import { protoType } from '../proto/index.js';
import type { ExampleMessage, InputMessage } from './grpc_messages.js';

type FeatureMap = Record<string, unknown>;

const featuresOf = (e: ExampleMessage | undefined | null): FeatureMap => ((e?.features as { feature?: FeatureMap } | undefined)?.feature ?? {});

export function serializedExamples(input: InputMessage | undefined | null): Uint8Array[] {
  const Example = protoType('tensorflow.Example');
  const encode = (feature: FeatureMap) => Example.encode(Example.fromObject({ features: { feature } })).finish();
  let out: Uint8Array[] = [];
  if (input?.exampleList) out = (input.exampleList.examples ?? []).map((e) => encode(featuresOf(e)));
  else if (input?.exampleListWithContext) {
    const context = featuresOf(input.exampleListWithContext.context);
    out = (input.exampleListWithContext.examples ?? []).map((e) => encode({ ...context, ...featuresOf(e) }));
  }
  if (!out.length) throw invalidArgument(MSG.INPUT_IS_EMPTY);
  return out;
}
