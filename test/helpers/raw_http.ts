// A plain HTTP/1.1 request with node:http: the path goes out exactly as written (no URL
// normalising, query and case kept) and the body as given bytes, as curl would send them.
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export function rawRequest(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: Uint8Array | string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const headers = { ...(body && { 'content-length': String(body.length) }), ...options.headers };
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(text.toString('utf8'));
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
