// HTTPS on the REST port (--rest_api_ssl_config_file): the SSLConfig applied as gRPC applies
// --ssl_config_file. client_verify: Node's TLS asks for a client certificate, and ends the
// handshake unless one signed by custom_ca is shown (`ca` replaces Node's bundled roots, so a
// certificate from any other authority, public ones included, is refused).
import https from 'node:https';
import type { SslConfig } from '../config/ssl_config.js';

/** What @hono/node-server's serve() takes to listen with https.createServer; nothing for plain HTTP. */
export function httpsServeOptions(tls: SslConfig | undefined): {
  createServer?: typeof https.createServer;
  serverOptions?: https.ServerOptions;
} {
  if (!tls) return {};
  return {
    createServer: https.createServer,
    serverOptions: {
      key: tls.server_key,
      cert: tls.server_cert,
      ...(tls.custom_ca && { ca: tls.custom_ca }),
      requestCert: tls.client_verify,
      rejectUnauthorized: tls.client_verify,
    },
  };
}

/** One line for the start-up log and --dry_run: which certificate, and whether clients must show one. */
export function tlsSummary(tls: SslConfig): string {
  const c = tls.certificate;
  return `certificate ${c.subject}${c.subjectAltName ? ` (${c.subjectAltName})` : ''}, valid to ${c.validTo}; client certificates ${tls.client_verify ? 'required, signed by custom_ca (mutual TLS)' : 'not requested'}`;
}
