// MonitoringConfig (tensorflow_serving/config/monitoring_config.proto), from
// --monitoring_config_file:
//   prometheus_config { enable: true, path: "/monitoring/prometheus/metrics" }
// An empty or missing path means PrometheusExporter::kPrometheusPath, as http_server.cc does.
// tfgate additionally requires the path to start with "/" (another path could never be requested).
import { deepFreeze, fail, message, positionOf, scalar, type MessageSchema, type ProtoMessage } from './schema.js';
import { parseTextProto } from './text_format.js';

const PrometheusConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.PrometheusConfig',
  fields: { enable: scalar('bool'), path: scalar('string') },
};
export const MonitoringConfigSchema: MessageSchema = {
  name: 'tensorflow.serving.MonitoringConfig',
  fields: { prometheus_config: message(PrometheusConfigSchema) },
};

const DEFAULT_PROMETHEUS_PATH = '/monitoring/prometheus/metrics';

export interface MonitoringConfig {
  readonly prometheus_config: { readonly enable: boolean; readonly path: string };
}

/** No --monitoring_config_file: Prometheus metrics off. */
export const DEFAULT_MONITORING_CONFIG: MonitoringConfig = deepFreeze({
  prometheus_config: { enable: false, path: DEFAULT_PROMETHEUS_PATH },
});

/** A parsed MonitoringConfig message → defaulted, checked, frozen MonitoringConfig. */
export function monitoringConfigFromProto(raw: ProtoMessage, file: string): MonitoringConfig {
  const prom = (raw.prometheus_config as ProtoMessage | undefined) ?? {};
  const path = (prom.path as string | undefined) || DEFAULT_PROMETHEUS_PATH;
  if (!path.startsWith('/')) fail(file, positionOf(prom, 'path'), `prometheus_config.path must start with "/"; was "${path}"`, 'path');
  return deepFreeze({ prometheus_config: { enable: (prom.enable as boolean | undefined) ?? false, path } });
}

export function parseMonitoringConfigText(text: string, file: string): MonitoringConfig {
  return monitoringConfigFromProto(parseTextProto(text, file, MonitoringConfigSchema), file);
}
