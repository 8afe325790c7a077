// SSLConfig (tensorflow_serving/config/ssl_config.proto), the text proto of --ssl_config_file
// (gRPC, applied as TF Serving's server.cc BuildServerCredentials applies it) and of tfgate's
// --rest_api_ssl_config_file (HTTPS on the REST port). The fields hold PEM text, not file names:
//   server_key: "-----BEGIN PRIVATE KEY-----\nMIG...\n-----END PRIVATE KEY-----\n"
//   server_cert: "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n"   (leaf first, then intermediates)
//   custom_ca: "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n"     (CAs client certificates must chain to)
//   client_verify: true                                                              (mutual TLS)
//
// TF Serving aborts on a file it cannot read or parse (CHECK_OK), and its gRPC server does not
// start with a key or certificate OpenSSL cannot load, or a key that is not the certificate's.
// tfgate refuses each of these before serving, also under --dry_run, naming file, line and field.
//
// One case TF Serving starts with and tfgate refuses: client_verify without custom_ca. gRPC's
// TLS layer then has no authority to check a client certificate against (it loads no default
// roots on a server) and turns every client away. Node's TLS would instead check client
// certificates against its bundled public CAs: anyone with a certificate from a public CA
// would get in. Neither is what the file's author meant, so tfgate says so and stops.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, deepFreeze, fail, positionOf, scalar, type MessageSchema, type ProtoMessage } from './schema.js';
import { parseTextProto } from './text_format.js';

export const SSLConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.SSLConfig',
  fields: {
    server_key: scalar('string'), // 1
    server_cert: scalar('string'), // 2
    custom_ca: scalar('string'), // 3
    client_verify: scalar('bool'), // 4
  },
};

export interface SslConfig {
  /** PEM private key, checked to be the private key of server_cert's first certificate. */
  readonly server_key: string;
  /** PEM certificate chain, leaf first. */
  readonly server_cert: string;
  /** PEM certificates of the CAs that client certificates must chain to; '' when none. */
  readonly custom_ca: string;
  /** Require and verify a client certificate (mutual TLS); custom_ca is then non-empty. */
  readonly client_verify: boolean;
  /** The leaf certificate, as a start-up line and --dry_run show it. */
  readonly certificate: { readonly subject: string; readonly subjectAltName: string; readonly validTo: string };
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Every PEM certificate of a field, parsed; fails naming the field when there is none or one does not parse. */
function certificates(file: string, raw: ProtoMessage, field: string, text: string): X509Certificate[] {
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (!blocks.length)
    fail(
      file,
      positionOf(raw, field),
      `${field} holds no PEM certificate ("-----BEGIN CERTIFICATE-----"): the field holds the certificate's PEM text, not a file name`,
      field,
    );
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (e) {
      return fail(
        file,
        positionOf(raw, field),
        `${field}: certificate ${i + 1} of ${blocks.length} is not a valid PEM certificate (${(e as Error).message})`,
        field,
      );
    }
  });
}

function privateKey(file: string, raw: ProtoMessage, text: string): KeyObject {
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text))
    fail(
      file,
      positionOf(raw, 'server_key'),
      'server_key holds no PEM private key ("-----BEGIN PRIVATE KEY-----"): the field holds the key\'s PEM text, not a file name',
      'server_key',
    );
  try {
    return createPrivateKey({ key: text, format: 'pem' });
  } catch (e) {
    return fail(file, positionOf(raw, 'server_key'), `server_key is not a usable PEM private key (${(e as Error).message})`, 'server_key');
  }
}

/** A parsed SSLConfig message → checked, frozen SslConfig (see the top of the file for what is refused). */
function sslConfigFromProto(raw: ProtoMessage, file: string): SslConfig {
  const key = (raw.server_key as string | undefined) ?? '';
  const cert = (raw.server_cert as string | undefined) ?? '';
  const ca = (raw.custom_ca as string | undefined) ?? '';
  const clientVerify = (raw.client_verify as boolean | undefined) ?? false;
  if (!key) fail(file, positionOf(raw), "server_key is empty: TLS needs the server's private key (PEM text)", 'server_key');
  if (!cert) fail(file, positionOf(raw), "server_cert is empty: TLS needs the server's certificate (PEM text)", 'server_cert');
  const keyObject = privateKey(file, raw, key);
  const [leaf] = certificates(file, raw, 'server_cert', cert);
  if (!leaf.checkPrivateKey(keyObject)) {
    fail(
      file,
      positionOf(raw, 'server_key'),
      `server_key is not the private key of server_cert's certificate (${leaf.subject.replace(/\n/g, ', ')})`,
      'server_key',
    );
  }
  if (ca) certificates(file, raw, 'custom_ca', ca);
  if (clientVerify && !ca) {
    fail(
      file,
      positionOf(raw, 'client_verify'),
      'client_verify is true but custom_ca is empty: no client certificate could be verified (TF Serving then turns every client away); give the CA that signs the client certificates in custom_ca',
      'client_verify',
    );
  }
  return deepFreeze({
    server_key: key,
    server_cert: cert,
    custom_ca: ca,
    client_verify: clientVerify,
    certificate: { subject: leaf.subject.replace(/\n/g, ', '), subjectAltName: leaf.subjectAltName ?? '', validTo: leaf.validTo },
  });
}

export function parseSslConfigText(text: string, file: string): SslConfig {
  return sslConfigFromProto(parseTextProto(text, file, SSLConfigSchema), file);
}

/** Reads and checks the SSLConfig named by `--<flag>`; a file that cannot be read is a ConfigError naming flag and file. */
export function readSslConfigFile(file: string, flag: string): SslConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`--${flag}=${file}: cannot read the SSLConfig file: ${(e as Error).message}`, file);
  }
  return parseSslConfigText(text, file);
}
