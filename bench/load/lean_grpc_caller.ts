// A gRPC unary caller that costs its machine as little as a client can: the request is framed
// once (the 5-byte gRPC prefix and the encoded message, a Buffer sent as is on every call) and
// goes out on Node's own HTTP/2 client with the headers @grpc/grpc-js sends (in its order), so the server
// reads the same headers and bytes as from a grpc-js client; the answer's bytes are only
// counted unless the caller asks for them. For benches whose callers share the cores with the
// server they measure (a real deployment's clients run on other machines): grpc-js's client
// machinery (its call objects, filters, metadata and a copy of each message into a new frame)
// is CPU the server being measured would not lose in production.
import http2 from 'node:http2';
import { createRequire } from 'node:module';

const GRPC_JS_VERSION: string = (createRequire(import.meta.url)('@grpc/grpc-js/package.json') as { version: string }).version;

/** A gRPC message with its length prefix (uncompressed), as it goes on the wire. */
export function grpcFrame(message: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(5 + message.length);
  framed[0] = 0;
  framed.writeUInt32BE(message.length, 1);
  message.copy(framed, 5);
  return framed;
}

/** A call's failure: its gRPC status (or -1 when the stream broke) and message. */
class LeanCallError extends Error {
  constructor(
    readonly code: number,
    details: string,
  ) {
    super(`gRPC status ${code}: ${details}`);
  }
}

export class LeanGrpcCaller {
  private readonly session: http2.ClientHttp2Session;
  private readonly authority: string;

  constructor(address: string) {
    this.authority = address;
    this.session = http2.connect(`http://${address}`);
    // A refused connection fails each call (its stream errors); no unhandled 'error' here.
    this.session.on('error', () => {});
  }

  /**
   * One unary call of `method` with a frame from grpcFrame. Resolves with the answer's message
   * bytes when `keep`, else with its length (the bytes are counted and dropped); rejects with
   * a LeanCallError for a status other than OK.
   */
  call(method: string, framed: Buffer, deadlineMs: number, keep: true): Promise<Buffer>;
  call(method: string, framed: Buffer, deadlineMs: number, keep?: false): Promise<number>;
  call(method: string, framed: Buffer, deadlineMs: number, keep = false): Promise<Buffer | number> {
    return new Promise((resolve, reject) => {
      const stream = this.session.request({
        ':authority': this.authority,
        ':method': 'POST',
        ':path': method,
        ':scheme': 'http',
        'grpc-accept-encoding': 'identity,deflate,gzip',
        'accept-encoding': 'identity',
        'grpc-timeout': `${deadlineMs}m`,
        'user-agent': `grpc-node-js/${GRPC_JS_VERSION}`,
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      const chunks: Buffer[] = [];
      let bytes = 0;
      let status: number | undefined;
      let details = '';
      const statusOf = (h: http2.IncomingHttpHeaders) => {
        if (h['grpc-status'] === undefined) return;
        status = Number(h['grpc-status']);
        details = decodeURIComponent(String(h['grpc-message'] ?? ''));
      };
      // A trailers-only answer (an error) carries grpc-status in its headers.
      stream.on('response', statusOf);
      stream.on('trailers', statusOf);
      stream.on('data', (d: Buffer) => {
        bytes += d.length;
        if (keep) chunks.push(d);
      });
      stream.on('error', (e) => reject(new LeanCallError(-1, e.message)));
      stream.on('close', () => {
        if (status !== 0) return reject(new LeanCallError(status ?? -1, status === undefined ? 'no grpc-status' : details));
        if (!keep) return resolve(bytes - 5);
        const whole = Buffer.concat(chunks, bytes);
        if (whole[0] !== 0 || whole.readUInt32BE(1) !== bytes - 5)
          return reject(new LeanCallError(-1, 'answer is not one uncompressed message'));
        resolve(whole.subarray(5));
      });
      stream.write(framed);
      stream.end();
    });
  }

  close(): void {
    this.session.close();
  }
}
