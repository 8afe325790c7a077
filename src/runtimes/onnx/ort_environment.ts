// What ONNX Runtime reads from the environment. Its Linux build carries a telemetry uploader
// (posix/telemetry.cc: 1DS events sent to mobile.events.data.microsoft.com, a DNS query seen from
// every thread that made an ORT environment) that starts unless ORT_DISABLE_TELEMETRY=1 is set
// before the library initialises; a model server sends nothing anywhere of its own accord. So the
// main thread sets it before any executor thread or load probe starts (both read the process's
// environment), unless the operator set the variable.
export function onnxRuntimeEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return env.ORT_DISABLE_TELEMETRY === undefined ? { ORT_DISABLE_TELEMETRY: '1' } : {};
}
