// gRPC HandleReloadConfigRequest: the ModelServerConfig a client sends, checked before it is
// applied as a changed --model_config_file would be.
import { modelServerConfigFromProto, type ModelServerConfig } from '../config/model_server_config.js';
import { isAllowedBasePath } from '../config/allowed_base_paths.js';
import type { ProtoMessage } from '../config/schema.js';
import { invalidArgument } from '../errors/status.js';
import type { Log } from './logger.js';

/**
 * The request's config, defaulted and validated; INVALID_ARGUMENT when it does not parse or
 * names a base path outside --reload_config_allowed_base_paths. The paths are refused on
 * their text, before any file-system access reveals what exists.
 */
export function configFromReloadRequest(raw: ProtoMessage, allowedBasePaths: readonly string[], log: Log): ModelServerConfig {
  let config: ModelServerConfig;
  try {
    config = modelServerConfigFromProto(raw, 'HandleReloadConfigRequest', { baseDir: process.cwd() });
  } catch (e) {
    throw invalidArgument((e as Error).message);
  }
  for (const m of config.model_config_list.config) {
    if (!isAllowedBasePath(m.base_path, allowedBasePaths)) {
      log(`HandleReloadConfigRequest refused: model ${m.name} base_path ${m.base_path} is outside ${allowedBasePaths.join(', ')}`, 'warn', {
        event: 'config_reload_refused',
        model: m.name,
      });
      throw invalidArgument(
        `Model ${m.name} has base_path ${m.base_path}, outside the base paths this server allows (--reload_config_allowed_base_paths)`,
      );
    }
  }
  log(
    `Reloading the model config from HandleReloadConfigRequest: ${config.model_config_list.config.map((m) => m.name).join(', ')}`,
    'info',
    { event: 'config_reload' },
  );
  return config;
}
