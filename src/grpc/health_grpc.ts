// grpc.health.v1.Health (--enable_grpc_healthcheck_service): the server as a whole ("") and
// TF Serving's two service names ("PredictionService", "ModelService") are SERVING while it
// accepts requests; a model name (tfgate's own) is SERVING once a version of it is
// AVAILABLE, NOT_SERVING while none is, and unknown names are NOT_FOUND (Check) or
// SERVICE_UNKNOWN (Watch), as the protocol says.
import { trailerMessage } from './grpc_status.js';
import {
  status as GrpcStatus,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';

/** Emitted on a Watch call when the server starts draining, just before the stream is ended. */
export const DRAINING_EVENT = 'tfgate.draining';

export type ServingStatus = 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

export interface HealthDeps {
  /** Status of "" (the server), of a service name, or of a model name. */
  statusOf(service: string): ServingStatus;
}

export function healthImplementation(deps: HealthDeps, pollMs = 1000): UntypedServiceImplementation {
  return {
    Check(call: ServerUnaryCall<{ service?: string }, object>, callback: sendUnaryData<object>) {
      const status = deps.statusOf(call.request.service ?? '');
      if (status === 'SERVICE_UNKNOWN')
        callback({ code: GrpcStatus.NOT_FOUND, details: trailerMessage(`unknown service ${call.request.service}`) });
      else callback(null, { status });
    },
    // Sends the status now and again whenever it changes, until the client goes away.
    Watch(call: ServerWritableStream<{ service?: string }, object>) {
      let last: ServingStatus | undefined;
      const send = () => {
        const status = deps.statusOf(call.request.service ?? '');
        if (status !== last) call.write({ status });
        last = status;
      };
      send();
      const timer = setInterval(send, pollMs);
      const stop = () => clearInterval(timer);
      call.on('cancelled', stop);
      call.on('close', stop);
      call.on('error', stop);
      // The last word before the drain ends the stream: NOT_SERVING, so a watcher knows why.
      call.on(DRAINING_EVENT, send);
    },
  };
}
