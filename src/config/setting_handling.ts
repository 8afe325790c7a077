// What tfgate does with each of TF Serving's settings — a flag, or a field of a config file.
// The rule these tables keep (test/config/flags_handling.test.ts reads them, and README's
// settings tables are checked against them): nothing that changes security, results or
// resource bounds is accepted and then ignored.
//
//   honoured   tfgate does what TF Serving does with it (`how` says how, where it differs)
//   refused    start-up (and --dry_run) stops naming it when it is set to anything but its
//              default: flags exit 2, fields of config files exit 1 with file:line:col
//   runtime    honoured or refused according to the runtime in force (`how` says which):
//              checked once the runtime is chosen, before anything loads
//   harmless   accepted with one log line saying why it changes nothing here (`why`)

export type SettingHandling =
  | { readonly kind: 'honoured'; readonly how?: string }
  | { readonly kind: 'refused'; readonly why: string }
  | { readonly kind: 'runtime'; readonly how: string }
  | { readonly kind: 'harmless'; readonly why: string };

export const honoured = (how?: string): SettingHandling => ({ kind: 'honoured', ...(how ? { how } : {}) });
export const refused = (why: string): SettingHandling => ({ kind: 'refused', why });
export const byRuntime = (how: string): SettingHandling => ({ kind: 'runtime', how });
export const harmless = (why: string): SettingHandling => ({ kind: 'harmless', why });

/** One harmless setting that was given: logged once at start-up. */
export interface HarmlessSetting {
  /** `--flag` or `file: field.path`. */
  readonly name: string;
  readonly why: string;
}

/** The README's word for a handling. */
export function handlingWord(h: SettingHandling): string {
  return h.kind === 'runtime' ? 'by runtime' : h.kind;
}

/** The README's explanation of a handling. */
export function handlingText(h: SettingHandling): string {
  return h.kind === 'honoured' ? (h.how ?? '') : h.kind === 'runtime' ? h.how : h.why;
}
