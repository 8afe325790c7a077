// The HTTP/2 windows a gRPC connection is given (grpc_server.ts): a client may send a large
// message without waiting for WINDOW_UPDATE after each 64 KB, on the TCP port and the Unix
// socket alike. Read by a plain node:http2 client, as any gRPC client sees them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { CONNECTION_WINDOW_BYTES, GrpcServer, STREAM_WINDOW_BYTES } from '../../src/grpc/grpc_server.js';
import { freePort } from '../helpers/server_process.js';

/**
 * The server's stream and connection windows as the client sees them after a ping's round
 * trip: what the server sent before its ping ack (its SETTINGS, its WINDOW_UPDATE) is in.
 */
async function windows(session: http2.ClientHttp2Session): Promise<{ stream: number; connection: number }> {
  await new Promise((resolve, reject) => {
    session.once('error', reject);
    session.once('remoteSettings', resolve);
  });
  await new Promise((resolve, reject) => session.ping((e) => (e ? reject(e) : resolve(undefined))));
  return { stream: session.remoteSettings.initialWindowSize ?? 0, connection: session.state.remoteWindowSize ?? 0 };
}

describe('gRPC HTTP/2 flow-control windows', () => {
  it('are widened on the TCP port and the Unix socket', async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-window-'));
    const socketPath = path.join(dir, 'grpc.sock');
    // No call reaches a service here: they need none of their dependencies.
    const server = new GrpcServer(
      { host: '127.0.0.1', port, socketPath, channelArguments: {}, maxReceiveMessageBytes: 1 << 20, health: false },
      {} as never,
    );
    await server.start();
    const sessions = [
      http2.connect(`http://127.0.0.1:${port}`),
      http2.connect('http://localhost', { createConnection: () => net.connect(socketPath) }),
    ];
    try {
      // Both listened to from the start: the first SETTINGS frame comes once.
      const seen = await Promise.all(sessions.map(windows));
      const widened = { stream: STREAM_WINDOW_BYTES, connection: CONNECTION_WINDOW_BYTES };
      assert.deepEqual(seen, [widened, widened]);
    } finally {
      for (const session of sessions) session.close();
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
