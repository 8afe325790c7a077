// A small stand-in for the GCS JSON API, enough for what tfgate asks of it through
// @google-cloud/storage with STORAGE_EMULATOR_HOST: list objects (prefix, delimiter, pages of
// PAGE_SIZE), download one (alt=media, with its CRC32C and MD5 in x-goog-hash as GCS sends them), a
// bucket's metadata (location). No GCS emulator is published on the npm registry that runs
// without Java or Docker, so the gcs module is checked against this, and the README says so.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CRC32C } from '@google-cloud/storage';

/** Entries (objects and prefixes together) per page, small so that paging is exercised. */
const PAGE_SIZE = 2;

export interface FakeBucket {
  location: string;
  objects: Map<string, Buffer>;
}

export class FakeGcs {
  readonly buckets = new Map<string, FakeBucket>();
  /** Requests received, as `METHOD path?query`. */
  readonly requests: string[] = [];
  /** Answer every request with this status (e.g. 403, 503) while set. */
  failWith?: number;
  /** Flip a byte of every download while set (the body no longer matches its checksums). */
  corrupt = false;
  private server?: http.Server;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  put(bucket: string, name: string, body: string | Buffer, location = 'US-EAST1'): void {
    if (!this.buckets.has(bucket)) this.buckets.set(bucket, { location, objects: new Map() });
    this.buckets.get(bucket)!.objects.set(name, Buffer.from(body));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.requests.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? '/', 'http://fake');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const error = (status: number, message: string, reason: string) =>
      json(status, { error: { code: status, message, errors: [{ reason, message }] } });
    if (this.failWith) return error(this.failWith, `fake failure ${this.failWith}`, this.failWith === 403 ? 'forbidden' : 'backendError');
    const m = /^(?:\/storage\/v1)?\/b\/([^/]+)(?:\/o(?:\/(.+))?)?$/.exec(url.pathname);
    if (!m) return error(400, `unexpected path ${url.pathname}`, 'invalid');
    const bucket = this.buckets.get(decodeURIComponent(m[1]));
    if (!bucket) return error(404, 'The specified bucket does not exist.', 'notFound');
    const isObjects = url.pathname.includes('/o');
    if (!isObjects) return json(200, { kind: 'storage#bucket', name: m[1], location: bucket.location });
    if (m[2] !== undefined) {
      const body = bucket.objects.get(decodeURIComponent(m[2]));
      if (!body) return error(404, 'No such object', 'notFound');
      const md5 = createHash('md5').update(body).digest('base64');
      const crc = new CRC32C();
      crc.update(body);
      const sent = Buffer.from(body);
      if (this.corrupt && sent.length) sent[0] ^= 0xff;
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': sent.length,
        'x-goog-hash': `crc32c=${crc.toString()},md5=${md5}`,
        'x-goog-stored-content-encoding': 'identity',
      });
      return void res.end(sent);
    }
    const prefix = url.searchParams.get('prefix') ?? '';
    const delimiter = url.searchParams.get('delimiter');
    const entries = new Map<string, { name: string; size: string } | string>();
    for (const [name, body] of [...bucket.objects].sort(([a], [b]) => a.localeCompare(b))) {
      if (!name.startsWith(prefix)) continue;
      const cut = delimiter ? name.indexOf(delimiter, prefix.length) : -1;
      if (cut >= 0) entries.set(name.slice(0, cut + 1), name.slice(0, cut + 1));
      else entries.set(name, { name, size: String(body.length) });
    }
    const all = [...entries.values()];
    const start = Number(url.searchParams.get('pageToken') ?? 0);
    const page = all.slice(start, start + PAGE_SIZE);
    json(200, {
      kind: 'storage#objects',
      items: page.filter((e) => typeof e !== 'string').map((o) => ({ kind: 'storage#object', bucket: m[1], ...(o as object) })),
      prefixes: page.filter((e): e is string => typeof e === 'string'),
      ...(start + PAGE_SIZE < all.length && { nextPageToken: String(start + PAGE_SIZE) }),
    });
  }
}
