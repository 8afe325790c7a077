// Readiness read from what the REST layer is already given: TF Serving's GetModelStatus JSON
// (one model's versions and their states) and tfgate's status page (every configured model).
// A model is ready when a version is AVAILABLE, the server when every model is ("Server
// Ready": "indicates if all the models are ready for inferencing").

interface VersionState {
  version: string;
  state: string;
}

function versionStates(list: unknown): VersionState[] {
  if (!Array.isArray(list)) return [];
  return list.filter(
    (v): v is VersionState => typeof v === 'object' && v !== null && typeof v.version === 'string' && typeof v.state === 'string',
  );
}

/** AVAILABLE versions, newest first, from GetModelStatus's JSON (`model_version_status`). */
export function availableVersions(modelStatus: unknown): number[] {
  const list = (modelStatus as { model_version_status?: unknown } | undefined)?.model_version_status;
  return versionStates(list)
    .filter((v) => v.state === 'AVAILABLE')
    .map((v) => Number(v.version))
    .sort((a, b) => b - a);
}

/** Models with no AVAILABLE version, from the status page (`models: [{name, versions}]`). */
export function modelsNotReady(serverStatus: unknown): string[] {
  const models = (serverStatus as { models?: unknown } | undefined)?.models;
  if (!Array.isArray(models)) return [];
  return models
    .filter((m): m is { name: string; versions: unknown } => typeof m === 'object' && m !== null && typeof m.name === 'string')
    .filter((m) => !versionStates(m.versions).some((v) => v.state === 'AVAILABLE'))
    .map((m) => m.name);
}
