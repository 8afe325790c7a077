// An S3-compatible server on loopback for the storage tests (s3rver: objects kept in a
// folder, SigV4 checked against its fixed key pair), and an AWS SDK client for it, so that
// tests put objects with the same SDK a deployment's tooling would use.
import fs from 'node:fs';
import path from 'node:path';
import S3rver from 's3rver';
import { CreateBucketCommand, DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { tempDir } from './temp.js';

/** s3rver's built-in credentials. */
export const S3RVER_KEY = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export class S3Fixture {
  private server?: S3rver;
  readonly client: S3Client;

  private constructor(
    private readonly directory: string,
    readonly port: number,
    server: S3rver,
  ) {
    this.server = server;
    this.client = new S3Client({ endpoint: this.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: S3RVER_KEY });
  }

  static async start(): Promise<S3Fixture> {
    const directory = tempDir('tfgate-s3rver-');
    const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
    const { port } = await server.run();
    return new S3Fixture(directory, port, server);
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The environment a tfgate process needs to reach this server, as TF's S3 file system reads it. */
  env(): Record<string, string> {
    return {
      S3_ENDPOINT: `127.0.0.1:${this.port}`,
      S3_USE_HTTPS: '0',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: S3RVER_KEY.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_KEY.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: 'true',
    };
  }

  async createBucket(bucket: string): Promise<void> {
    await this.client.send(new CreateBucketCommand({ Bucket: bucket }));
  }

  async put(bucket: string, key: string, body: string | Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  }

  /** Uploads every file of the local folder `dir` under `prefix/`. */
  async putFolder(bucket: string, prefix: string, dir: string): Promise<void> {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      await this.put(bucket, `${prefix}/${path.relative(dir, file).split(path.sep).join('/')}`, fs.readFileSync(file));
    }
  }

  /** Deletes every object under `prefix/`. */
  async removePrefix(bucket: string, prefix: string): Promise<void> {
    const listed = await this.client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }));
    const keys = (listed.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (keys.length) await this.client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
  }

  /** Stops answering (connections refused) until resume(); the objects stay. */
  async pause(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    server?.httpServer?.closeAllConnections();
    await server?.close();
  }

  /** Answers again on the same port, with the same objects. */
  async resume(): Promise<void> {
    const server = new S3rver({ port: this.port, address: '127.0.0.1', silent: true, directory: this.directory });
    await server.run();
    this.server = server;
  }

  async stop(): Promise<void> {
    this.client.destroy();
    await this.pause();
  }
}
