// The gRPC server (@grpc/grpc-js) on --port and/or --grpc_socket_path: PredictionService,
// ModelService and, with --enable_grpc_healthcheck_service, grpc.health.v1.Health.
import { Server, ServerCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { serviceDefinition } from './service_definitions.js';
import { predictionServiceImplementation, type PredictionGrpcDeps } from './prediction_service_grpc.js';
import { modelServiceImplementation, type ModelServiceGrpcDeps } from './model_service_grpc.js';
import { healthImplementation, type HealthDeps } from './health_grpc.js';

export interface GrpcServerOptions {
  host: string;
  /** 0: no TCP port. */
  port: number;
  /** Non-empty: also listen on this Unix socket. */
  socketPath: string;
  /** --grpc_channel_arguments. */
  channelArguments: Readonly<Record<string, string | number>>;
  /** --max_request_body_bytes: the largest message received unless the channel arguments say otherwise. */
  maxReceiveMessageBytes: number;
  health: boolean;
}

/**
 * TF Serving lets messages be as large as protobuf allows (kint32max) and has no flag of its
 * own for it (main.cc: SetMaxMessageSize(kint32max), then --grpc_channel_arguments). tfgate
 * receives at most --max_request_body_bytes, REST's limit, unless
 * --grpc_channel_arguments=grpc.max_receive_message_length=N says otherwise: a message is
 * decoded whole before any handler sees it, so the limit must be checked by gRPC itself.
 */
const INT32_MAX = 2 ** 31 - 1;

export class GrpcServer {
  private readonly server: Server;
  /** Bound addresses, e.g. `0.0.0.0:8500`, `unix:/run/tfgate.sock`. */
  readonly addresses: string[] = [];

  constructor(
    private readonly options: GrpcServerOptions,
    deps: PredictionGrpcDeps & ModelServiceGrpcDeps & HealthDeps,
  ) {
    const channelOptions: ChannelOptions = {
      'grpc.max_receive_message_length': Math.min(options.maxReceiveMessageBytes, INT32_MAX),
      'grpc.max_send_message_length': INT32_MAX,
      ...options.channelArguments,
    };
    this.server = new Server(channelOptions);
    this.server.addService(serviceDefinition('tensorflow.serving.PredictionService'), predictionServiceImplementation(deps));
    this.server.addService(serviceDefinition('tensorflow.serving.ModelService'), modelServiceImplementation(deps));
    if (options.health) this.server.addService(serviceDefinition('grpc.health.v1.Health'), healthImplementation(deps));
  }

  private bind(address: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.bindAsync(address, ServerCredentials.createInsecure(), (e, port) => (e ? reject(e) : resolve(port)));
    });
  }

  /** Binds the port and/or socket; resolves with the TCP port bound (0 when none). */
  async start(): Promise<number> {
    let bound = 0;
    if (this.options.port > 0) {
      bound = await this.bind(`${this.options.host}:${this.options.port}`);
      this.addresses.push(`${this.options.host}:${bound}`);
    }
    if (this.options.socketPath) {
      await this.bind(`unix:${this.options.socketPath}`);
      this.addresses.push(`unix:${this.options.socketPath}`);
    }
    return bound;
  }

  /** Stops taking calls and waits for the running ones (within the caller's drain bound). */
  stop(): Promise<void> {
    return new Promise((resolve) => this.server.tryShutdown(() => resolve()));
  }
}
