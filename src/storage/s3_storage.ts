// s3://bucket/prefix through the AWS SDK (@aws-sdk/client-s3): AWS S3, and through
// S3_ENDPOINT any S3-compatible server (MinIO, Ceph RGW, Cloudflare R2, GCS's XML API).
//
// The environment is read as TF's S3 file system read it (tensorflow/core/platform/s3/
// s3_file_system.cc, the last in-tree version, TF 2.6):
//   S3_ENDPOINT              host[:port] of the server (a full http(s):// URL is taken as is)
//   S3_USE_HTTPS             '0…' → http, anything else → https (default https)
//   S3_VERIFY_SSL            '0…' → the server's certificate is not verified
//   AWS_REGION, S3_REGION    the region (AWS_REGION first); else the SDK's own chain
//                            (~/.aws/config of AWS_PROFILE), and us-east-1 with S3_ENDPOINT
//   S3_CONNECT_TIMEOUT_MSEC, S3_REQUEST_TIMEOUT_MSEC   default 300000, as TF
//   S3_CA_FILE, S3_CA_PATH   extra CA certificates (a PEM file; a folder of PEM files)
// Credentials are the SDK's default chain: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/
// AWS_SESSION_TOKEN, AWS_PROFILE with ~/.aws/credentials, web identity (EKS IRSA), ECS and
// EC2 instance roles. With S3_ENDPOINT, buckets are addressed by path (bucket in the URL
// path, as TF does for all servers); on AWS itself the SDK's virtual-hosted style is kept.
// TF's multi-part download settings (S3_DISABLE_MULTI_PART_DOWNLOAD, S3_MULTI_PART_*_CHUNK_SIZE)
// have no meaning here: each object is streamed whole to the local cache.
import fs from 'node:fs';
import path from 'node:path';
import type { AgentOptions } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { Readable } from 'node:stream';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { FolderListing, Storage, StoredObject } from './storage.js';
import { credentialHint, notFoundError, StorageError } from './storage_error.js';

/** TF's default for both S3 timeouts (kS3TimeoutMsec). */
const DEFAULT_TIMEOUT_MS = 300_000;

/** What the environment asks of the S3 client, resolved once at start-up. */
export interface S3Settings {
  readonly endpoint?: string;
  readonly region?: string;
  readonly forcePathStyle: boolean;
  readonly verifyTls: boolean;
  /** PEM text of extra CA certificates (S3_CA_FILE, S3_CA_PATH). */
  readonly extraCa: readonly string[];
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

const flagOff = (v: string | undefined) => v !== undefined && v.startsWith('0');
const millis = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v.trim()) : DEFAULT_TIMEOUT_MS);

/** The environment variables TF's S3 file system reads, as it reads them. */
export function s3SettingsFromEnv(env: NodeJS.ProcessEnv): S3Settings {
  const raw = env.S3_ENDPOINT?.trim();
  const endpoint = raw ? (/^https?:\/\//i.test(raw) ? raw : `${flagOff(env.S3_USE_HTTPS) ? 'http' : 'https'}://${raw}`) : undefined;
  const extraCa: string[] = [];
  if (env.S3_CA_FILE) extraCa.push(fs.readFileSync(env.S3_CA_FILE, 'utf8'));
  if (env.S3_CA_PATH)
    for (const f of fs.readdirSync(env.S3_CA_PATH).sort())
      if (/\.(pem|crt)$/i.test(f)) extraCa.push(fs.readFileSync(path.join(env.S3_CA_PATH, f), 'utf8'));
  return {
    endpoint,
    region: env.AWS_REGION || env.S3_REGION || (endpoint ? 'us-east-1' : undefined),
    forcePathStyle: endpoint !== undefined,
    verifyTls: !flagOff(env.S3_VERIFY_SSL),
    extraCa,
    connectTimeoutMs: millis(env.S3_CONNECT_TIMEOUT_MSEC),
    requestTimeoutMs: millis(env.S3_REQUEST_TIMEOUT_MSEC),
  };
}

function s3ClientConfig(s: S3Settings): S3ClientConfig {
  const httpsAgent: AgentOptions = { keepAlive: true, rejectUnauthorized: s.verifyTls };
  // Node's `ca` replaces the system's roots: keep them beside the extra ones.
  if (s.extraCa.length) httpsAgent.ca = [...rootCertificates, ...s.extraCa];
  return {
    ...(s.endpoint && { endpoint: s.endpoint }),
    ...(s.region && { region: s.region }),
    forcePathStyle: s.forcePathStyle,
    requestHandler: { connectionTimeout: s.connectTimeoutMs, requestTimeout: s.requestTimeoutMs, httpsAgent },
  };
}

/** s3://bucket/a/b → { bucket, key: 'a/b' } (no leading or trailing slash). */
function parseS3(location: string): { bucket: string; key: string } {
  const m = /^s3:\/\/([^/]+)\/*(.*?)\/*$/i.exec(location);
  if (!m) throw new StorageError(`${location} is not an s3://bucket/prefix location`, 'EINVAL', location);
  return { bucket: m[1], key: m[2] };
}

/** An SDK or network failure as a StorageError whose code is stable from one poll to the next. */
function s3Error(e: unknown, location: string): StorageError {
  const err = e as Error & { code?: string; $metadata?: { httpStatusCode?: number } };
  const status = err.$metadata?.httpStatusCode;
  const code = (err.name && err.name !== 'Error' ? err.name : undefined) ?? err.code ?? (status ? `HTTP${status}` : 'Error');
  const message = `${code}: ${err.message || 'no message'}${status ? ` (HTTP ${status})` : ''}${credentialHint(code, 's3')}`;
  return new StorageError(message, code, location);
}

/** The SDK, loaded when an s3:// path first needs it: imported with tfgate, it cost every start ~0.3 s of CPU. */
const loadSdk = () => import('@aws-sdk/client-s3');

export function s3Storage(settings: S3Settings): Storage {
  const config = s3ClientConfig(settings);
  let connected: Promise<{ sdk: Awaited<ReturnType<typeof loadSdk>>; client: S3Client }> | undefined;
  const connect = () => (connected ??= loadSdk().then((sdk) => ({ sdk, client: new sdk.S3Client(config) })));

  async function* pages(location: string, delimiter: string | undefined) {
    const { bucket, key } = parseS3(location);
    const prefix = key ? `${key}/` : '';
    try {
      const { sdk, client } = await connect();
      for await (const page of sdk.paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix, Delimiter: delimiter }))
        yield { page, prefix };
    } catch (e) {
      throw s3Error(e, location);
    }
  }

  return {
    async list(folder: string): Promise<FolderListing> {
      const folders: string[] = [];
      const files: string[] = [];
      let any = false;
      for await (const { page, prefix } of pages(folder, '/')) {
        for (const p of page.CommonPrefixes ?? []) {
          any = true;
          const name = (p.Prefix ?? '').slice(prefix.length).replace(/\/$/, '');
          if (name) folders.push(name);
        }
        for (const o of page.Contents ?? []) {
          any = true;
          const name = (o.Key ?? '').slice(prefix.length);
          if (name) files.push(name);
        }
      }
      // S3 has no folders: a prefix with no object below it is a folder that does not exist
      // (as TF's S3 Stat says). The bucket itself exists once it can be listed.
      if (!any && parseS3(folder).key) throw notFoundError(folder, 'no object has this prefix');
      return { folders, files };
    },

    async listTree(folder: string): Promise<StoredObject[]> {
      const out: StoredObject[] = [];
      for await (const { page, prefix } of pages(folder, undefined)) {
        for (const o of page.Contents ?? []) {
          const rel = (o.Key ?? '').slice(prefix.length);
          // A zero-byte "folder/" marker some tools write is no file.
          if (rel && !rel.endsWith('/')) out.push({ path: rel, bytes: o.Size ?? 0 });
        }
      }
      return out;
    },

    async open(file: string): Promise<Readable> {
      const { bucket, key } = parseS3(file);
      try {
        const { sdk, client } = await connect();
        const r = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
        return r.Body as Readable;
      } catch (e) {
        throw s3Error(e, file);
      }
    },
  };
}
