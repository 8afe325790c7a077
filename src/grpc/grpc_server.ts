// The gRPC server (@grpc/grpc-js) on --port and/or --grpc_socket_path: PredictionService,
// ModelService, with --enable_grpc_healthcheck_service grpc.health.v1.Health, and server
// reflection. With --ssl_config_file both listeners take TLS only, as in TF Serving.
import { Server, ServerCredentials, type ChannelOptions, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { SslConfig } from '../config/ssl_config.js';
import { addServerReflection } from './server_reflection.js';
import type { EventEmitter } from 'node:events';
import type { Http2Session } from 'node:http2';
import { serviceDefinition } from './service_definitions.js';
import { predictionServiceImplementation, type PredictionGrpcDeps } from './prediction_service_grpc.js';
import { modelServiceImplementation, type ModelServiceGrpcDeps } from './model_service_grpc.js';
import { DRAINING_EVENT, healthImplementation, type HealthDeps } from './health_grpc.js';
import { serializePredictResponse } from './predict_response_codec.js';
import { deserializePredictRequest } from './predict_request_codec.js';
import { exampleRequestDeserializer } from './example_request_codec.js';

export interface GrpcServerOptions {
  /** --grpc_api_host: the address the TCP port binds to (TF Serving: always 0.0.0.0). */
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
  /** --ssl_config_file, read and checked; undefined: plaintext. */
  tls?: SslConfig;
}

/**
 * TF Serving's BuildServerCredentials: the key and certificate chain; custom_ca as the roots
 * client certificates must chain to; client_verify: a client certificate is required and
 * verified (GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY).
 */
function serverCredentials(tls: SslConfig | undefined): ServerCredentials {
  if (!tls) return ServerCredentials.createInsecure();
  const ca = tls.custom_ca ? Buffer.from(tls.custom_ca) : null;
  return ServerCredentials.createSsl(
    ca,
    [{ private_key: Buffer.from(tls.server_key), cert_chain: Buffer.from(tls.server_cert) }],
    tls.client_verify,
  );
}

/** A call still running when the drain bound passed. */
export interface CutCall {
  method: string;
  ms: number;
}

interface RunningCall {
  method: string;
  started: number;
  /** Server-streaming calls (Health.Watch) are ended at the drain: they would never end alone. */
  end?: () => void;
}

type AnyCall = EventEmitter & { end?: () => void };
type Handler = (call: AnyCall, callback?: (...args: unknown[]) => void) => void;

/**
 * TF Serving lets messages be as large as protobuf allows (kint32max) and has no flag of its
 * own for it (main.cc: SetMaxMessageSize(kint32max), then --grpc_channel_arguments). tfgate
 * receives at most --max_request_body_bytes, REST's limit, unless
 * --grpc_channel_arguments=grpc.max_receive_message_length=N says otherwise: a message is
 * decoded whole before any handler sees it, so the limit must be checked by gRPC itself.
 */
const INT32_MAX = 2 ** 31 - 1;

/**
 * HTTP/2 flow-control windows of each connection: what a client may send before the server
 * acknowledges it. Node's default, 64 KB for each stream and for the connection, makes a
 * 300 KB image's request wait for four rounds of WINDOW_UPDATE, and with 16 callers on one
 * connection they queue for the connection's 64 KB: each round is another wake-up and read
 * on the event loop (0.9 against 1.4 ms of main-thread CPU per 300 KB message, measured).
 * grpc-core, which TF Serving runs, widens its windows as it measures the link (BDP probing).
 * What a stream sends beyond its window waits in the client; a connection buffers at most
 * CONNECTION_WINDOW unread bytes here (grpc-js pauses a stream once its message is whole).
 */
export const STREAM_WINDOW_BYTES = 1 << 20;
export const CONNECTION_WINDOW_BYTES = 16 << 20;

function widenWindows(session: Http2Session): void {
  session.settings({ initialWindowSize: STREAM_WINDOW_BYTES });
  session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
}

/**
 * grpc-js (1.14) makes its http2 servers itself and has no option for their windows (its
 * `grpc-node.flow_control_window` is the client's): each one bound is found in its
 * `http2Servers` map and given a 'session' listener. test/grpc/grpc_flow_control.test.ts
 * reads the settings a connection gets, so a grpc-js that moves the map fails there.
 */
function widenWindowsOfNewSessions(server: Server, seen: WeakSet<object>): void {
  const servers = (server as unknown as { http2Servers?: Map<EventEmitter, unknown> }).http2Servers;
  for (const http2Server of servers?.keys() ?? []) {
    if (seen.has(http2Server)) continue;
    seen.add(http2Server);
    http2Server.on('session', widenWindows);
  }
}

export class GrpcServer {
  private readonly server: Server;
  /** Insecure, or TLS from --ssl_config_file; the same for the TCP port and the Unix socket. */
  private readonly credentials: ServerCredentials;
  /** Bound addresses, e.g. `0.0.0.0:8500`, `unix:/run/tfgate.sock`. */
  readonly addresses: string[] = [];

  constructor(
    private readonly options: GrpcServerOptions,
    deps: PredictionGrpcDeps & ModelServiceGrpcDeps & HealthDeps,
  ) {
    const channelOptions: ChannelOptions = {
      'grpc.max_receive_message_length': Math.min(options.maxReceiveMessageBytes, INT32_MAX),
      'grpc.max_send_message_length': INT32_MAX,
      // Channelz keeps per-call counters and traces nobody reads unless a channelz service is
      // served (tfgate serves none): ~4 % of the main thread's time per Predict, measured.
      'grpc.enable_channelz': 0,
      ...options.channelArguments,
    };
    this.server = new Server(channelOptions);
    const predictionCodecs = {
      Predict: { deserializeRequest: deserializePredictRequest, serializeResponse: serializePredictResponse },
      Classify: { deserializeRequest: exampleRequestDeserializer('tensorflow.serving.ClassificationRequest') },
      Regress: { deserializeRequest: exampleRequestDeserializer('tensorflow.serving.RegressionRequest') },
      MultiInference: { deserializeRequest: exampleRequestDeserializer('tensorflow.serving.MultiInferenceRequest') },
    };
    this.server.addService(
      serviceDefinition('tensorflow.serving.PredictionService', predictionCodecs),
      this.tracked('tensorflow.serving.PredictionService', predictionServiceImplementation(deps)),
    );
    this.server.addService(
      serviceDefinition('tensorflow.serving.ModelService'),
      this.tracked('tensorflow.serving.ModelService', modelServiceImplementation(deps)),
    );
    if (options.health)
      this.server.addService(serviceDefinition('grpc.health.v1.Health'), this.tracked('grpc.health.v1.Health', healthImplementation(deps)));
    // Tracked like the others, so that the drain ends a reflection stream a client keeps open.
    const trackedServer = {
      addService: (definition: ServiceDefinition, impl: UntypedServiceImplementation) => {
        const service = /^\/(.+)\/[^/]+$/.exec(Object.values(definition)[0].path)![1];
        this.server.addService(definition, this.tracked(service, impl));
      },
    };
    addServerReflection(trackedServer, [
      'tensorflow.serving.PredictionService',
      'tensorflow.serving.ModelService',
      ...(options.health ? ['grpc.health.v1.Health'] : []),
    ]);
    this.credentials = serverCredentials(options.tls);
  }

  private readonly running = new Set<RunningCall>();
  private draining = false;

  /** Each handler wrapped to know which calls run, so the drain can name the ones it cuts. */
  private tracked(service: string, impl: UntypedServiceImplementation): UntypedServiceImplementation {
    const wrapped: Record<string, Handler> = {};
    for (const [method, original] of Object.entries(impl) as Array<[string, Handler]>) {
      wrapped[method] = (call, callback) => {
        const entry: RunningCall = { method: `/${service}/${method}`, started: performance.now() };
        this.running.add(entry);
        const done = () => this.running.delete(entry);
        for (const event of ['cancelled', 'finish', 'close', 'error']) call.once(event, done);
        if (callback) return original(call, (...args) => (done(), callback(...args)));
        entry.end = () => {
          call.emit(DRAINING_EVENT);
          call.end?.();
        };
        original(call);
        if (this.draining) entry.end();
      };
    }
    return wrapped as unknown as UntypedServiceImplementation;
  }

  /** The http2 servers whose sessions get wider windows. */
  private readonly widened = new WeakSet<object>();

  private bind(address: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.bindAsync(address, this.credentials, (e, port) => {
        if (e) return reject(e);
        widenWindowsOfNewSessions(this.server, this.widened);
        resolve(port);
      });
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

  /** Stops taking calls, ends streams, and waits for the running unary calls (tryShutdown: GOAWAY, then each session closes when its calls end). */
  stop(): Promise<void> {
    this.draining = true;
    const stopped = new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
    for (const call of this.running) call.end?.();
    return stopped;
  }

  /** The drain bound passed: cancels what still runs (forceShutdown) and says what that cut. */
  forceStop(): CutCall[] {
    const now = performance.now();
    const cut = [...this.running].map((c) => ({ method: c.method, ms: Math.round(now - c.started) }));
    this.server.forceShutdown();
    return cut;
  }
}
