// What the engines print on their own. tfgate's log is one JSON object per line on stderr
// (server/logger.ts); inside an executor thread the engines write there too: TF.js through
// console (its banners, and XNNPACK's errors, which tfjs-backend-wasm's Emscripten module
// prints with console.warn), ONNX Runtime natively to fd 2 in ANSI colours (silenced at its
// source: onnx_session.ts sets its log level to fatal; its errors come back as rejections).
// This routes a thread's console into the same JSON lines, so a log reader parsing every line
// never meets one that is not JSON.
import { format } from 'node:util';

/** pino's numeric levels, as the server's own lines carry them. */
const LEVELS = { debug: 20, log: 30, info: 30, warn: 40, error: 50 } as const;

/** One JSON line as the server logger writes them, `source` telling the engine's lines apart. */
export function engineLogLine(level: keyof typeof LEVELS, args: unknown[], source: string): string {
  const msg = format(...args)
    .replace(/\u001b\[[0-9;]*m/g, '')
    .trimEnd();
  return `${JSON.stringify({ level: LEVELS[level], time: new Date().toISOString(), name: 'tfgate', source, msg })}\n`;
}

/** Routes this thread's console.* into JSON lines on stderr (once per thread). */
export function routeEngineChatter(source = 'executor'): void {
  for (const level of Object.keys(LEVELS) as Array<keyof typeof LEVELS>) {
    console[level] = (...args: unknown[]) => {
      process.stderr.write(engineLogLine(level, args, source));
    };
  }
}
