// gRPC server reflection in process, asked by a grpc-js client built from the tests' own
// reflection.proto: the services listed, and a reflection stream a client keeps open ended by
// the server's drain instead of holding it up until the drain bound.
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { GrpcServer } from '../../src/grpc/grpc_server.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { freePort } from '../helpers/server_process.js';

const definition = protoLoader.loadSync('reflection.proto', {
  includeDirs: [path.join(REPO_ROOT, 'test', 'helpers', 'client_protos')],
  keepCase: true,
  oneofs: true,
});
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const ServerReflection = (grpc.loadPackageDefinition(definition) as any).grpc.reflection.v1alpha.ServerReflection as typeof grpc.Client;

type ListAnswer = { list_services_response: { service: Array<{ name: string }> } };

describe('gRPC server reflection', () => {
  for (const health of [true, false]) {
    it(`lists the services registered${health ? ', Health among them,' : ''} and itself; the drain ends a stream left open`, async () => {
      const port = await freePort();
      // No call reaches a service here: they need none of their dependencies.
      const server = new GrpcServer(
        { host: '127.0.0.1', port, socketPath: '', channelArguments: {}, maxReceiveMessageBytes: 1 << 20, health },
        {} as never,
      );
      await server.start();
      const client = new ServerReflection(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const stream = (client as any).ServerReflectionInfo() as grpc.ClientDuplexStream<object, ListAnswer>;
      const answered = new Promise<ListAnswer>((resolve) => stream.once('data', resolve));
      const status = new Promise<grpc.StatusObject>((resolve) => stream.once('status', resolve));
      stream.on('error', () => {});
      stream.write({ list_services: '*' });
      const names = (await answered).list_services_response.service.map((s) => s.name).sort();
      const expected = [
        'grpc.reflection.v1.ServerReflection',
        'grpc.reflection.v1alpha.ServerReflection',
        'tensorflow.serving.ModelService',
        'tensorflow.serving.PredictionService',
      ];
      assert.deepEqual(names, health ? ['grpc.health.v1.Health', ...expected] : expected);
      // The stream is still open: the drain ends only if the server ends it. (A bound, not a
      // measurement: past it the server is forced down so that the test fails instead of hanging.)
      const drained = await Promise.race([server.stop().then(() => true), sleep(20_000, false, { ref: false })]);
      if (!drained) server.forceStop();
      client.close();
      assert.ok(drained, 'the drain waited for the open reflection stream');
      assert.equal((await status).code, grpc.status.OK);
    });
  }
});
