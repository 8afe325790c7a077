// README's tables of every TF Serving setting, generated from the tables in src/config.
// To refresh README after changing a table: node dist/test/config/settings_markdown.js
// prints the block that goes between the markers.
import { fileURLToPath } from 'node:url';
import { FLAGS, type FlagSpec } from '../../src/config/flags.js';
import {
  BATCHING_PARAMETERS_FIELDS,
  MODEL_SERVER_CONFIG_FIELDS,
  MONITORING_CONFIG_FIELDS,
  NOT_YET,
} from '../../src/config/config_fields.js';
import { SESSION_BUNDLE_CONFIG_FIELDS } from '../../src/config/platform_config.js';
import { SESSION_CONFIG_FIELDS } from '../../src/config/session_config.js';
import { handlingText, handlingWord, type SettingHandling } from '../../src/config/setting_handling.js';

export const BEGIN = '<!-- settings-tables: generated from src/config (test/config/settings_markdown.ts) -->';
export const END = '<!-- /settings-tables -->';

type Handling = SettingHandling | typeof NOT_YET | FlagSpec['handling'];
const cell = (s: string) => s.replace(/\|/g, '\\|');
const word = (h: Handling) => (h.kind === 'ignored' ? 'not yet honoured' : handlingWord(h));
const text = (h: Handling, note?: string) =>
  cell(h.kind === 'ignored' ? h.why : h.kind === 'honoured' ? (h.how ?? note ?? 'as TF Serving') : handlingText(h));

function fieldTable(title: string, fields: Readonly<Record<string, Handling>>): string[] {
  return [
    `**${title}**`,
    '',
    '| field | handling | what tfgate does |',
    '|---|---|---|',
    ...Object.entries(fields).map(([f, h]) => `| \`${f}\` | ${word(h)} | ${text(h)} |`),
    '',
  ];
}

export function settingsMarkdown(): string {
  const flags = Object.entries(FLAGS).filter(([, s]) => !s.own);
  return [
    BEGIN,
    "**Flags** (`main.cc`'s table, in its order)",
    '',
    '| flag | handling | what tfgate does |',
    '|---|---|---|',
    ...flags.map(([n, s]) => `| \`--${n}\` | ${word(s.handling)} | ${text(s.handling, s.note)} |`),
    '',
    ...fieldTable('`--model_config_file` (ModelServerConfig; `config.*`: each ModelConfig)', MODEL_SERVER_CONFIG_FIELDS),
    ...fieldTable(
      "`--batching_parameters_file`, `batching_params.pbtxt`, a platform config's `batching_parameters` (BatchingParameters)",
      BATCHING_PARAMETERS_FIELDS,
    ),
    ...fieldTable('`--monitoring_config_file` (MonitoringConfig)', MONITORING_CONFIG_FIELDS),
    ...fieldTable(
      "`--platform_config_file`: the `tensorflow` platform's SessionBundleConfig (`legacy_config`)",
      SESSION_BUNDLE_CONFIG_FIELDS,
    ),
    ...fieldTable("`--tensorflow_session_config_file`, a platform config's `session_config` (TF ConfigProto)", SESSION_CONFIG_FIELDS),
    END,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(`${settingsMarkdown()}\n`);
