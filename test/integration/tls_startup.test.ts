// Transport-security settings TLS could not honour stop the real process before it serves, as
// TF Serving aborts — started normally and under --dry_run alike: exit 1 for an SSLConfig file
// (config), exit 2 for ALTS (flags), each with a message naming the flag, file or field.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MODELS } from '../helpers/paths.js';
import { freePort, TFGATE_BIN } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';
import { makeTestPki, sslConfigText } from '../helpers/test_pki.js';

const HP2 = path.join(MODELS, 'saved_model_half_plus_two_cpu');

/** Runs tfgate to its exit; 'served' (and killed) if it got as far as serving instead. */
async function runTfgate(args: string[]): Promise<{ code: number | 'served'; output: string }> {
  const proc = spawn(
    process.execPath,
    [
      TFGATE_BIN,
      `--model_base_path=${HP2}`,
      '--rest_api_host=127.0.0.1',
      '--grpc_api_host=127.0.0.1',
      `--rest_api_port=${await freePort()}`,
      `--port=${await freePort()}`,
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let served = false;
  const seen = (d: Buffer) => {
    output += d;
    if (!served && /Exporting HTTP\/REST API|"models":/.test(output)) {
      served = true;
      proc.kill('SIGKILL');
    }
  };
  proc.stdout.on('data', seen);
  proc.stderr.on('data', seen);
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
  return { code: served ? 'served' : (code ?? -1), output };
}

describe('TLS settings refused at start-up and by --dry_run (real process)', () => {
  const files = { missing: '', wrongKey: '', good: '' };
  before(() => {
    const dir = tempDir('tfgate-tls-startup-');
    const pki = makeTestPki(dir);
    const write = (name: string, text: string) => {
      fs.writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    files.missing = path.join(dir, 'no_such_ssl.cfg');
    files.wrongKey = write('wrong_key.cfg', sslConfigText({ key: pki.client.key, cert: pki.server.cert }));
    files.good = write('good.cfg', sslConfigText(pki.server));
  });

  // Each case once; --dry_run or not alternates (both read the files in the same constructor,
  // and every tfgate process costs ~2 s of CPU to load), the missing file in both modes.
  const CASES: Array<[string, () => string[], number, (f: typeof files) => RegExp]> = [
    [
      'a missing --ssl_config_file',
      () => [`--ssl_config_file=${files.missing}`],
      1,
      (f) => new RegExp(`--ssl_config_file=${escape(f.missing)}: cannot read the SSLConfig file: ENOENT`),
    ],
    [
      'a missing --ssl_config_file (--dry_run)',
      () => [`--ssl_config_file=${files.missing}`, '--dry_run'],
      1,
      (f) => new RegExp(`--ssl_config_file=${escape(f.missing)}: cannot read the SSLConfig file: ENOENT`),
    ],
    [
      "a server_key that is not the certificate's (--dry_run)",
      () => [`--ssl_config_file=${files.wrongKey}`, '--dry_run'],
      1,
      (f) => new RegExp(`${escape(f.wrongKey)}:1:1: server_key is not the private key of server_cert's certificate \\(CN=localhost\\)`),
    ],
    [
      '--use_alts_credentials (--dry_run)',
      () => ['--use_alts_credentials', '--dry_run'],
      2,
      () =>
        /^--use_alts_credentials=true is refused: tfgate's gRPC library \(grpc-js\) has no ALTS credentials; use --ssl_config_file for TLS/,
    ],
    [
      '--use_alts_credentials with --ssl_config_file',
      () => ['--use_alts_credentials', `--ssl_config_file=${files.good}`],
      2,
      () => /^Either use_alts_credentials must be false or ssl_config_file must be empty\.$/m,
    ],
  ];

  it('each case exits with its code and a message naming what is wrong, before serving', async () => {
    await Promise.all(
      CASES.map(async ([what, args, code, message]) => {
        const r = await runTfgate(args());
        assert.equal(r.code, code, `${what}:\n${r.output}`);
        assert.match(r.output, message(files), what);
      }),
    );
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
