// Minimal --flag=value / --flag value / --bool parsing for the `show` and `run` subcommands
// (saved_model_cli's flag names). Unknown flags are usage errors (exit code 2).
export class UsageError extends Error {}

export function parseSubcommandArgs(argv: string[], valueFlags: string[], boolFlags: string[]): Map<string, string | true> {
  const out = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const m = /^--?([A-Za-z_][\w-]*)(?:=(.*))?$/s.exec(arg);
    if (!m) throw new UsageError(`unexpected argument: ${arg}`);
    const name = m[1].replace(/-/g, '_');
    if (boolFlags.includes(name)) {
      if (m[2] !== undefined && !['true', 'false'].includes(m[2])) throw new UsageError(`--${name} takes no value`);
      if (m[2] !== 'false') out.set(name, true);
    } else if (valueFlags.includes(name)) {
      const value = m[2] ?? argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      out.set(name, value);
    } else {
      throw new UsageError(`unknown flag: --${name}`);
    }
  }
  return out;
}
