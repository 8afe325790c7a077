// Reads --platform_config_file or --tensorflow_session_config_file once at start-up and
// applies it to the options (config/session_bundle_config.ts). A file that cannot be read
// stops start-up naming it, as TF Serving aborts on it.
import { readFileSync } from 'node:fs';
import type { ServerOptions } from '../config/flags.js';
import { parsePlatformConfigText } from '../config/platform_config.js';
import { ConfigError } from '../config/schema.js';
import { applyPlatformConfig, applySessionConfig } from '../config/session_bundle_config.js';
import { parseSessionConfigText } from '../config/session_config.js';

function read(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`${file}: cannot read --${flag}: ${(e as Error).message}`, file);
  }
}

export function readEngineConfigFiles(options: ServerOptions): ServerOptions {
  const platform = options.platformConfigFile;
  if (platform) return applyPlatformConfig(options, parsePlatformConfigText(read(platform, 'platform_config_file'), platform), platform);
  const session = options.sessionConfigFile;
  if (session)
    return applySessionConfig(options, parseSessionConfigText(read(session, 'tensorflow_session_config_file'), session), session);
  return options;
}
