// tfgate's canonical codes are gRPC's status codes (same numbering): an error crosses as
// its code and TF Serving's message.
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { toStatusData } from '../errors/status.js';

export function grpcError(e: unknown): Partial<ServiceError> {
  const status = toStatusData(e);
  return { code: status.code as number, details: status.message, metadata: new Metadata() };
}
