// A TF Serving gRPC client as users generate one: @grpc/grpc-js + @grpc/proto-loader
// (snake_case fields, int64 as strings, enums as names) over client_protos/, the tests' own
// .proto files written from TF Serving's, TensorFlow's and gRPC's definitions. It shares
// nothing with the server, not even the .proto text, so a field-number slip in src/proto
// shows up.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

export const CLIENT_PROTOS = path.join(REPO_ROOT, 'test', 'helpers', 'client_protos');

const definition = protoLoader.loadSync(['prediction_service.proto', 'model_service.proto', 'health.proto'], {
  includeDirs: [CLIENT_PROTOS],
  keepCase: true,
  longs: String,
  enums: String,
  defaults: false,
  oneofs: false,
});
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const loaded = grpc.loadPackageDefinition(definition) as any;

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Message = any;

export interface Clients {
  prediction: grpc.Client & Record<string, any>;
  model: grpc.Client & Record<string, any>;
  health: grpc.Client & Record<string, any>;
  close(): void;
}

export function connect(address: string, options: grpc.ChannelOptions = {}): Clients {
  const creds = grpc.credentials.createInsecure();
  const prediction = new loaded.tensorflow.serving.PredictionService(address, creds, options);
  const model = new loaded.tensorflow.serving.ModelService(address, creds, options);
  const health = new loaded.grpc.health.v1.Health(address, creds, options);
  return {
    prediction,
    model,
    health,
    close: () => [prediction, model, health].forEach((c) => c.close()),
  };
}

/** Calls a unary method; resolves with the response or rejects with the grpc ServiceError. */
export function call(client: Record<string, any>, method: string, request: Message, deadlineMs = 30_000): Promise<Message> {
  return new Promise((resolve, reject) => {
    client[method](request, { deadline: new Date(Date.now() + deadlineMs) }, (err: grpc.ServiceError | null, res: Message) =>
      err ? reject(err) : resolve(res),
    );
  });
}

export function isGrpcError(code: grpc.status, details: RegExp) {
  return (e: unknown) => {
    const err = e as grpc.ServiceError;
    if (err.code !== code) throw new Error(`expected ${grpc.status[code]}, got ${grpc.status[err.code]}: ${err.details}`);
    if (!details.test(err.details)) throw new Error(`details ${JSON.stringify(err.details)} do not match ${details}`);
    return true;
  };
}

export { grpc };
