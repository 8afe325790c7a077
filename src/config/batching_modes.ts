// tfgate's batching modes: which policy decides when a partial batch runs. TF Serving has one
// (`fixed`, its batch_timeout_micros); tfgate adds its own. This table is where a mode is
// named: `--batching_mode` and a YAML `batching:` section's `mode:` are checked against it,
// and `--batching_mode`'s help is made from it. src/batching/batch_policies.ts maps each mode
// to its policy (the compiler requires one for every mode here).
const BATCHING_MODES = {
  fixed: "TF Serving's batch_timeout_micros",
  adaptive: 'tfgate learns the batch cost and waits only when it pays',
} as const satisfies Record<string, string>;

export type BatchingMode = keyof typeof BATCHING_MODES;

export const BATCHING_MODE_NAMES = Object.keys(BATCHING_MODES) as readonly BatchingMode[];

export function isBatchingMode(name: string): name is BatchingMode {
  return Object.hasOwn(BATCHING_MODES, name);
}

/** "fixed (…) or adaptive (…)": each mode with what it does, for --batching_mode's help. */
export function batchingModesHelp(): string {
  const each = BATCHING_MODE_NAMES.map((m) => `${m} (${BATCHING_MODES[m]})`);
  return each.length > 1 ? `${each.slice(0, -1).join(', ')} or ${each.at(-1)}` : each.join('');
}
