// Classify / Regress / MultiInference requests keep their Input and tasks in the message: the
// examples read from it are the tf.Examples protobufjs' decoding gave (a plain list as sent,
// a list with context merged as TF Serving's parser merges it), tasks come one at a time, the
// examples' memory is charged before any is read, and bytes that are no request are refused
// by the deserializer.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { exampleRequestDeserializer, readExamples, readTasks } from '../../src/grpc/example_request_codec.js';
import { serviceDefinition } from '../../src/grpc/service_definitions.js';
import { protoType, TO_OBJECT } from '../../src/proto/index.js';

const service = serviceDefinition('tensorflow.serving.PredictionService');
const Example = protoType('tensorflow.Example');
const example = (feature: Record<string, unknown>) => ({ features: { feature } });
const floats = (...value: number[]) => ({ floatList: { value } });
const decoded = (bytes: Uint8Array) => Example.toObject(Example.decode(bytes), { ...TO_OBJECT, oneofs: false });

describe('Classify / Regress / MultiInference deserializer', () => {
  const classify = exampleRequestDeserializer('tensorflow.serving.ClassificationRequest');
  const multi = exampleRequestDeserializer('tensorflow.serving.MultiInferenceRequest');

  it('a plain list: the Examples as sent, their memory charged first', () => {
    const request = {
      modelSpec: { name: 'm', signatureName: 'classify' },
      input: { exampleList: { examples: [example({ x: floats(1) }), example({ x: floats(2, 3) }), {}] } },
    };
    const wire = classify(service.Classify.requestSerialize(request));
    assert.deepEqual(wire.modelSpec, { name: 'm', signatureName: 'classify' });
    const charged: number[] = [];
    const examples = readExamples(wire, (b) => charged.push(b));
    assert.deepEqual(
      examples.map(decoded),
      request.input.exampleList.examples.map((e) => decoded(Example.encode(Example.fromObject(e)).finish())),
    );
    const bytes = examples.reduce((a, e) => a + e.length, 0);
    assert.deepEqual(charged, [3 * 192 + 2 * bytes]);
  });

  it("a list with context: each Example with the context's features, its own winning", () => {
    const request = {
      modelSpec: { name: 'm' },
      input: {
        exampleListWithContext: { context: example({ x: floats(6), c: floats(1) }), examples: [example({}), example({ x: floats(4) })] },
      },
    };
    const examples = readExamples(classify(service.Classify.requestSerialize(request)));
    assert.deepEqual(
      examples.map((e) => (decoded(e) as { features: { feature: Record<string, { floatList: { value: number[] } }> } }).features.feature),
      [
        { x: { floatList: { value: [6] } }, c: { floatList: { value: [1] } } },
        { x: { floatList: { value: [4] } }, c: { floatList: { value: [1] } } },
      ],
    );
  });

  it('no examples: TF Serving\'s "Input is empty"; nothing charged', () => {
    const wire = classify(service.Classify.requestSerialize({ modelSpec: { name: 'm' }, input: { exampleList: {} } }));
    assert.throws(() => readExamples(wire, () => assert.fail('charged')), /Input is empty/);
  });

  it('MultiInference: tasks read one at a time, the first decoded at once', () => {
    const tasks = [1, 2, 3].map((i) => ({ modelSpec: { name: 'm', signatureName: `s${i}` }, methodName: 'tensorflow/serving/regress' }));
    const wire = multi(
      service.MultiInference.requestSerialize({ tasks, input: { exampleList: { examples: [example({ x: floats(1) })] } } }),
    );
    assert.equal(wire.taskCount, 3);
    assert.deepEqual(wire.firstTask, tasks[0]);
    const iterator = readTasks(wire);
    assert.deepEqual(iterator.next().value, tasks[0]);
    assert.deepEqual([...iterator], tasks.slice(1));
  });

  it('an Example that does not parse is refused by the deserializer, as protobufjs refused it', () => {
    const badExample = Uint8Array.of(10, 5, 10, 3, 10, 1); // Features → map entry → a key past its end
    const w = protobuf.Writer.create();
    w.uint32(18).fork().uint32(10).fork().uint32(10).bytes(badExample).ldelim().ldelim();
    const bytes = Buffer.from(w.finish());
    assert.throws(() => service.Classify.requestDeserialize(bytes));
    assert.throws(() => classify(bytes));
  });
});
