// tensorflow.serving.Input → serialized tf.Example strings, as TF Serving feeds them to a
// classify/regress signature: each example as is, or with the context's bytes in front
// (protobuf merge semantics: an example's own features win over the context's).
import { invalidArgument } from '../core/status.js';
import { protoType } from '../proto/index.js';
import type { ExampleMessage, InputMessage } from './grpc_messages.js';

export function serializedExamples(input: InputMessage | undefined | null): Uint8Array[] {
  const Example = protoType('tensorflow.Example');
  const encode = (e: ExampleMessage) => Example.encode(Example.fromObject(e)).finish();
  let out: Uint8Array[] = [];
  if (input?.exampleList) out = (input.exampleList.examples ?? []).map(encode);
  else if (input?.exampleListWithContext) {
    const context = encode(input.exampleListWithContext.context ?? {});
    out = (input.exampleListWithContext.examples ?? []).map((e) => {
      const own = encode(e);
      const joined = new Uint8Array(context.length + own.length);
      joined.set(context, 0);
      joined.set(own, context.length);
      return joined;
    });
  }
  if (!out.length) throw invalidArgument('Input is empty.');
  return out;
}
