// grpc-js service definitions built from the project's own .proto files (the protobufjs root
// that also reads SavedModels), so messages are encoded by the same schema everywhere:
// requests decode to plain objects (camelCase, enums as names, int64 as decimal strings so
// no bit is lost, bytes as Uint8Array); responses are plain objects in the same shape.
import type { ServiceDefinition } from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { protoRoot, TO_OBJECT } from '../proto/index.js';

function codec(type: protobuf.Type) {
  return {
    serialize: (value: object) => Buffer.from(type.encode(type.fromObject(value)).finish()),
    deserialize: (bytes: Buffer) => type.toObject(type.decode(bytes), { ...TO_OBJECT, longs: String }),
  };
}

/** A method's own codec, in place of protobufjs' for its requests and / or responses. */
interface MethodCodec {
  deserializeRequest?: (bytes: Buffer) => object;
  serializeResponse?: (value: object) => Buffer;
}

/** `tensorflow.serving.PredictionService` → the definition grpc-js serves; `own`: codecs by method name. */
export function serviceDefinition(fullName: string, own: Record<string, MethodCodec> = {}): ServiceDefinition {
  const service = protoRoot().lookupService(fullName);
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const method of service.methodsArray) {
    method.resolve();
    const req = codec(method.resolvedRequestType!);
    const res = codec(method.resolvedResponseType!);
    definition[method.name] = {
      path: `/${fullName}/${method.name}`,
      requestStream: !!method.requestStream,
      responseStream: !!method.responseStream,
      requestSerialize: req.serialize,
      requestDeserialize: own[method.name]?.deserializeRequest ?? req.deserialize,
      responseSerialize: own[method.name]?.serializeResponse ?? res.serialize,
      responseDeserialize: res.deserialize,
      originalName: method.name,
    };
  }
  return definition as ServiceDefinition;
}
