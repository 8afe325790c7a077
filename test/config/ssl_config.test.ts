// SSLConfig (--ssl_config_file, --rest_api_ssl_config_file): the text proto as TF Serving reads
// it, each key or certificate TLS could not use refused naming file, line and field; the flags
// resolved into ServerOptions; ALTS refused. Certificates made with openssl (test_pki.ts).
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';
import { ConfigError } from '../../src/config/schema.js';
import { parseSslConfigText, readSslConfigFile, SSLConfigSchema } from '../../src/config/ssl_config.js';
import { FlagError, parseServerOptions } from '../../src/config/flags.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { makeTestPki, sslConfigText, type TestPki } from '../helpers/test_pki.js';

const configError = (re: RegExp, field?: string) => (e: unknown) =>
  e instanceof ConfigError && re.test(e.message) && (field === undefined || e.field === field);
const flagError = (flag: string, message: string) => (e: unknown) => e instanceof FlagError && e.flag === flag && e.message === message;

describe('SSLConfig', () => {
  let pki: TestPki;
  let dir: string;
  const pem = (file: string) => fs.readFileSync(file, 'utf8');
  before(() => {
    dir = tempDir('tfgate-ssl-config-');
    pki = makeTestPki(dir);
  });

  it("has ssl_config.proto's fields, names, numbers and types", () => {
    const type = new protobuf.Root()
      .loadSync(path.join(REPO_ROOT, 'src', 'proto', 'tensorflow_serving', 'config', 'ssl_config.proto'), { keepCase: true })
      .lookupType('tensorflow.serving.SSLConfig');
    assert.equal(`tensorflow.serving.${type.name}`, SSLConfigSchema.name);
    const fromProto = type.fieldsArray.map((f) => [f.name, f.id, f.type]);
    assert.deepEqual(fromProto, [
      ['server_key', 1, 'string'],
      ['server_cert', 2, 'string'],
      ['custom_ca', 3, 'string'],
      ['client_verify', 4, 'bool'],
    ]);
    assert.deepEqual(
      Object.entries(SSLConfigSchema.fields).map(([name, f]) => [name, f.kind === 'scalar' && f.type]),
      fromProto.map(([name, , t]) => [name, t]),
    );
  });

  it('reads the PEM text of the four fields; describes the certificate', () => {
    const c = parseSslConfigText(sslConfigText({ ...pki.server, ca: pki.ca, clientVerify: true }), 'ssl.cfg');
    assert.equal(c.server_key, pem(pki.server.key));
    assert.equal(c.server_cert, pem(pki.server.cert));
    assert.equal(c.custom_ca, pem(pki.ca));
    assert.equal(c.client_verify, true);
    assert.equal(c.certificate.subject, 'CN=localhost');
    assert.equal(c.certificate.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1');
    assert.ok(Object.isFrozen(c) && Object.isFrozen(c.certificate));
    const plain = parseSslConfigText(sslConfigText(pki.server), 'ssl.cfg');
    assert.deepEqual([plain.custom_ca, plain.client_verify], ['', false]);
  });

  it('takes a certificate chain (leaf first) and several CAs', () => {
    const chain = `${pem(pki.server.cert)}${pem(pki.ca)}`;
    const text = `server_key: ${JSON.stringify(pem(pki.server.key))}\nserver_cert: ${JSON.stringify(chain)}\ncustom_ca: ${JSON.stringify(pem(pki.ca) + pem(pki.otherCa))}\nclient_verify: true\n`;
    assert.equal(parseSslConfigText(text, 'ssl.cfg').server_cert, chain);
  });

  const REFUSED: Array<[string, () => string, RegExp, string]> = [
    ['an empty file', () => '', /^ssl\.cfg:1:1: server_key is empty: TLS needs the server's private key \(PEM text\)$/, 'server_key'],
    ['no server_cert', () => sslConfigText({ key: pki.server.key }), /^ssl\.cfg:1:1: server_cert is empty/, 'server_cert'],
    [
      'a file name where the PEM text goes',
      () => `server_key: "${pki.server.key}"\nserver_cert: "${pki.server.cert}"\n`,
      /^ssl\.cfg:1:1: server_key holds no PEM private key \("-----BEGIN PRIVATE KEY-----"\): the field holds the key's PEM text, not a file name$/,
      'server_key',
    ],
    [
      'a malformed private key',
      () =>
        `server_key: "-----BEGIN PRIVATE KEY-----\\nbm90IGEga2V5\\n-----END PRIVATE KEY-----\\n"\nserver_cert: ${JSON.stringify(pem(pki.server.cert))}\n`,
      /^ssl\.cfg:1:1: server_key is not a usable PEM private key \(/,
      'server_key',
    ],
    [
      'a malformed certificate',
      () =>
        `server_key: ${JSON.stringify(pem(pki.server.key))}\nserver_cert: "-----BEGIN CERTIFICATE-----\\nbm90IGEgY2VydA==\\n-----END CERTIFICATE-----\\n"\n`,
      /^ssl\.cfg:2:1: server_cert: certificate 1 of 1 is not a valid PEM certificate \(/,
      'server_cert',
    ],
    [
      "a key that is not the certificate's",
      () => sslConfigText({ key: pki.client.key, cert: pki.server.cert }),
      /^ssl\.cfg:1:1: server_key is not the private key of server_cert's certificate \(CN=localhost\)$/,
      'server_key',
    ],
    [
      'custom_ca without a certificate',
      () => `${sslConfigText(pki.server)}custom_ca: "ca.pem"\n`,
      /^ssl\.cfg:3:1: custom_ca holds no PEM certificate/,
      'custom_ca',
    ],
    [
      'client_verify without custom_ca',
      () => sslConfigText({ ...pki.server, clientVerify: true }),
      /^ssl\.cfg:3:1: client_verify is true but custom_ca is empty: no client certificate could be verified \(TF Serving then turns every client away\); give the CA that signs the client certificates in custom_ca$/,
      'client_verify',
    ],
    [
      'an unknown field',
      () => `${sslConfigText(pki.server)}verify_client: true\n`,
      /^ssl\.cfg:3:1: Message type "tensorflow\.serving\.SSLConfig" has no field named "verify_client"\.$/,
      'verify_client',
    ],
  ];
  for (const [what, text, message, field] of REFUSED) {
    it(`refuses ${what}, naming file, position and field`, () =>
      assert.throws(() => parseSslConfigText(text(), 'ssl.cfg'), configError(message, field)));
  }

  it('a file that cannot be read is refused naming the flag and the file', () => {
    const missing = path.join(dir, 'missing.cfg');
    assert.throws(
      () => readSslConfigFile(missing, 'ssl_config_file'),
      configError(
        new RegExp(`^--ssl_config_file=${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot read the SSLConfig file: ENOENT`),
      ),
    );
  });
});

describe('--ssl_config_file, --rest_api_ssl_config_file, --use_alts_credentials', () => {
  it('resolve to absolute paths; null when not given; only local files', () => {
    const o = parseServerOptions(
      ['--model_base_path=/m', '--ssl_config_file=tls/grpc.cfg', '--rest_api_ssl_config_file=/etc/rest.cfg'],
      '/w',
    );
    assert.deepEqual([o.sslConfigFile, o.restApiSslConfigFile], ['/w/tls/grpc.cfg', '/etc/rest.cfg']);
    const d = parseServerOptions(['--model_base_path=/m']);
    assert.deepEqual([d.sslConfigFile, d.restApiSslConfigFile], [null, null]);
    assert.throws(
      () => parseServerOptions(['--model_base_path=/m', '--ssl_config_file=s3://bucket/ssl.cfg']),
      (e: unknown) => e instanceof FlagError && e.flag === 'ssl_config_file',
    );
    assert.deepEqual(o.harmlessSettingsGiven, []);
  });
  it('--use_alts_credentials is refused; with --ssl_config_file in the words of TF Serving', () => {
    assert.throws(
      () => parseServerOptions(['--model_base_path=/m', '--use_alts_credentials']),
      flagError(
        'use_alts_credentials',
        "--use_alts_credentials=true is refused: tfgate's gRPC library (grpc-js) has no ALTS credentials; use --ssl_config_file for TLS (mutual TLS with client_verify)",
      ),
    );
    assert.throws(
      () => parseServerOptions(['--model_base_path=/m', '--use_alts_credentials', '--ssl_config_file=/s']),
      flagError('use_alts_credentials', 'Either use_alts_credentials must be false or ssl_config_file must be empty.'),
    );
    assert.equal(parseServerOptions(['--model_base_path=/m', '--use_alts_credentials=false']).sslConfigFile, null);
  });
  it('an SSLConfig for a transport that is off is refused', () => {
    assert.throws(
      () => parseServerOptions(['--model_base_path=/m', '--port=0', '--ssl_config_file=/s']),
      flagError(
        'ssl_config_file',
        "Flag 'ssl_config_file' sets up TLS for gRPC, which is off (--port=0, no --grpc_socket_path); HTTPS on the REST port is --rest_api_ssl_config_file",
      ),
    );
    assert.equal(
      parseServerOptions(['--model_base_path=/m', '--port=0', '--grpc_socket_path=/g.sock', '--ssl_config_file=/s']).sslConfigFile,
      '/s',
    );
    assert.throws(
      () => parseServerOptions(['--model_base_path=/m', '--rest_api_port=0', '--rest_api_ssl_config_file=/s']),
      flagError(
        'rest_api_ssl_config_file',
        "Flag 'rest_api_ssl_config_file' sets up HTTPS for the HTTP/REST API, which is off (--rest_api_port=0)",
      ),
    );
  });
});
