// Graceful drain of the REST server for SIGTERM/SIGINT. Node's own http.Server.close() is not
// enough: it destroys every connection whose response has been *ended* — including one whose
// 25 MB body still sits unflushed in the socket's buffer (cut mid-body) — and it never asks a
// busy keep-alive connection to close, so under keep-alive load the drain never ends.
// Here: stop listening, answer every request already received with `Connection: close`, end
// idle keep-alive connections, and count the drain done when every socket has flushed its
// last byte to the kernel and closed. At the bound, what is left is cut and reported.
import net from 'node:net';
import tls from 'node:tls';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';

/** A request still being answered when the drain bound passed. */
export interface CutRequest {
  method: string;
  path: string;
  /** How long it had been running. */
  ms: number;
  /** Whether its answer had begun (status and headers sent). */
  answerBegun: boolean;
  /** Bytes of the answer still in the process's buffer. */
  unflushedBytes: number;
}

interface InFlight {
  req: IncomingMessage;
  res: ServerResponse;
  started: number;
}

export class HttpDrain {
  /**
   * Every open connection, with its requests not yet known to be answered, oldest first. An
   * answer is not watched for as it closes (a listener made, added and taken off again for
   * every request): its request leaves the list when the next one on the connection comes, or
   * is found answered (`res.closed`) when the drain looks. Only the drain watches answers.
   */
  private readonly sockets = new Map<net.Socket, InFlight[]>();
  private draining = false;
  private onEmpty?: () => void;

  constructor(private readonly server: HttpServer) {
    // Over HTTPS a request's socket is the TLS socket, which exists once the handshake is done
    // ('secureConnection'); 'connection' gives the TCP socket under it, which must not be ended
    // on its own while the TLS socket above it still writes an answer.
    const connectionEvent = server instanceof tls.Server ? 'secureConnection' : 'connection';
    server.on(connectionEvent, (socket: net.Socket) => {
      if (this.draining) return void socket.destroy(); // accepted just before listening stopped
      this.sockets.set(socket, []);
      socket.once('close', () => {
        this.sockets.delete(socket);
        this.checkEmpty();
      });
    });
    // Before the app's handler, so the header is set before the app writes its answer.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => this.track(req, res));
  }

  private track(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    const running = this.sockets.get(socket);
    if (running === undefined) return;
    // A connection answers its requests in order: those answered are at the front.
    while (running.length > 0 && running[0].res.closed) running.shift();
    running.push({ req, res, started: performance.now() });
    if (this.draining) this.endWhenAnswered(socket, running, res);
  }

  /** Draining: asks for `res` to be the connection's last, and ends it once every answer on it has closed. */
  private endWhenAnswered(socket: net.Socket, running: InFlight[], res: ServerResponse): void {
    this.askToClose(res);
    // 'close' comes after 'finish' (the last byte handed to the kernel) or when the socket dies.
    res.once('close', () => {
      if (running.every((r) => r.res.closed)) endSocket(socket);
    });
  }

  private askToClose(res: ServerResponse): void {
    if (!res.headersSent) res.setHeader('Connection', 'close'); // Node then closes the socket once this answer is flushed
  }

  private checkEmpty(): void {
    if (this.draining && this.sockets.size === 0) this.onEmpty?.();
  }

  /** Requests received and not yet fully answered. */
  get inFlight(): number {
    let n = 0;
    for (const running of this.sockets.values()) for (const r of running) if (!r.res.closed) n++;
    return n;
  }

  /** Stops listening and resolves once every connection has flushed its answers and closed. */
  drain(): Promise<void> {
    if (this.draining) return new Promise((resolve) => (this.sockets.size === 0 ? resolve() : (this.onEmpty = resolve)));
    this.draining = true;
    const done = new Promise<void>((resolve) => (this.onEmpty = resolve));
    // net.Server's close, not http.Server's: only stop listening (see the top of the file).
    if (this.server.listening) net.Server.prototype.close.call(this.server);
    for (const [socket, running] of this.sockets) {
      const open = running.filter((r) => !r.res.closed);
      if (open.length === 0) endSocket(socket);
      else for (const { res } of open) this.endWhenAnswered(socket, running, res);
    }
    this.checkEmpty();
    return done;
  }

  /** The bound passed: destroys every connection left and says which requests that cut. */
  forceClose(): CutRequest[] {
    const now = performance.now();
    const cut: CutRequest[] = [];
    for (const [socket, running] of this.sockets) {
      for (const { req, res, started } of running) {
        if (res.closed) continue;
        cut.push({
          method: req.method ?? '',
          path: req.url ?? '',
          ms: Math.round(now - started),
          answerBegun: res.headersSent,
          unflushedBytes: socket.writableLength,
        });
      }
      socket.destroy();
    }
    return cut;
  }
}

/** FIN once the buffered bytes are written, then close: the kernel still delivers what it holds. */
function endSocket(socket: net.Socket): void {
  if (socket.destroyed) return;
  socket.end();
  if (socket.writableFinished) socket.destroy();
  else socket.once('finish', () => socket.destroy());
}
