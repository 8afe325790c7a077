// `--name value` options and `--flag` switches from a bench's command line (after `npm run bench:x --`).
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

export function stringArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

export function flagArg(name: string): boolean {
  return process.argv.includes(`--${name}`);
}
