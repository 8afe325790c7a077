// Certificates for the TLS tests, made by the openssl command line in a temporary folder:
// a CA, a server certificate for localhost / 127.0.0.1 (subjectAltName) and a client
// certificate both signed by it, and a second CA with a client certificate of its own (the
// "wrong CA"). EC P-256 keys: made in milliseconds. Valid for two days.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface KeyPair {
  /** PEM file paths. */
  key: string;
  cert: string;
}

export interface TestPki {
  /** The CA that signs the server and `client` certificates. */
  ca: string;
  server: KeyPair;
  client: KeyPair;
  /** A client certificate signed by another CA (`otherCa`). */
  strangerClient: KeyPair;
  otherCa: string;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function makeCa(dir: string, name: string): KeyPair {
  openssl(dir, [
    'req',
    '-x509',
    ...EC_KEY,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.pem`,
    '-days',
    '2',
    '-subj',
    `/CN=tfgate test ${name}`,
  ]);
  return { key: path.join(dir, `${name}.key`), cert: path.join(dir, `${name}.pem`) };
}

let serial = 1000;
function issue(dir: string, ca: KeyPair, name: string, subject: string, extensions: string): KeyPair {
  fs.writeFileSync(path.join(dir, `${name}.ext`), extensions);
  openssl(dir, ['req', ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    ca.cert,
    '-CAkey',
    ca.key,
    '-set_serial',
    String(serial++),
    '-days',
    '2',
    '-out',
    `${name}.pem`,
    '-extfile',
    `${name}.ext`,
  ]);
  return { key: path.join(dir, `${name}.key`), cert: path.join(dir, `${name}.pem`) };
}

export function makeTestPki(dir: string): TestPki {
  const ca = makeCa(dir, 'ca');
  const otherCa = makeCa(dir, 'other_ca');
  return {
    ca: ca.cert,
    otherCa: otherCa.cert,
    server: issue(dir, ca, 'server', '/CN=localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n'),
    client: issue(dir, ca, 'client', '/CN=tfgate test client', 'extendedKeyUsage=clientAuth\n'),
    strangerClient: issue(dir, otherCa, 'stranger_client', '/CN=tfgate test stranger', 'extendedKeyUsage=clientAuth\n'),
  };
}

/** An SSLConfig text proto (--ssl_config_file) holding the PEM text of the given files. */
export function sslConfigText(files: { key?: string; cert?: string; ca?: string; clientVerify?: boolean }): string {
  // JSON's string escapes (\n, \", \\) are also the text format's.
  const field = (name: string, file?: string) => (file ? `${name}: ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n` : '');
  return `${field('server_key', files.key)}${field('server_cert', files.cert)}${field('custom_ca', files.ca)}${files.clientVerify ? 'client_verify: true\n' : ''}`;
}
