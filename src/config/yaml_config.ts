// tfgate's `--config FILE.yaml`: the content of a models.config in YAML, read against the
// same descriptors as the text proto (so the same field names, the same checks, the same
// result), plus what TF Serving keeps in other files:
//
//   model_config_list:              # or the shorthand `models: [ … ]` (a list of configs)
//     config:
//       - name: half_plus_two
//         base_path: models/half_plus_two        # relative: against this file's folder
//         model_version_policy: {latest: {num_versions: 2}}   # or {all: {}} / {specific: {versions: [1, 2]}}
//         version_labels: {stable: 1, canary: 2}             # or [{key: stable, value: 1}]
//         batching: {max_batch_size: 32, allowed_batch_sizes: [8, 32]}   # per model (optional)
//         # tfgate's own, in any batching: section: mode: adaptive, latency_target_ms: 50
//   batching:                       # BatchingParameters (--batching_parameters_file's content)
//     max_batch_size: 128           # wrapper fields: bare values or {value: 128}
//     num_batch_threads: 8
//   monitoring_config:              # MonitoringConfig (--monitoring_config_file's content)
//     prometheus_config: {enable: true}
//
// A per-model `batching:` section replaces the top-level one for that model (as a model's
// batching_params.pbtxt does under --enable_per_model_batching_parameters), except the batch
// thread pool, which all models share: num_batch_threads and thread_pool_name come from the
// top-level section and may not be set per model.
// Errors are ConfigErrors `file:line:col: …` from the yaml package's positions.
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node as YamlNode, type Scalar } from 'yaml';
import {
  batchingParametersFromProto,
  defaultBatchingParameters,
  TfgateBatchingSchema,
  type BatchingParameters,
} from './batching_parameters.js';
import {
  ModelConfigListSchema,
  ModelConfigSchema,
  modelServerConfigFromProto,
  type ModelConfigOptions,
  type ModelServerConfig,
} from './model_server_config.js';
import { monitoringConfigFromProto, MonitoringConfigSchema, type MonitoringConfig } from './monitoring_config.js';
import {
  AnySchema,
  completeMapEntry,
  convertEnum,
  convertScalar,
  deepFreeze,
  fail,
  mapEntrySchema,
  message,
  MessageBuilder,
  positionOf,
  type FieldSchema,
  type MessageSchema,
  type Position,
  type ProtoMessage,
  type ProtoValue,
  type RawScalar,
  type ScalarType,
  type EnumSchema,
} from './schema.js';

// ---- YAML against a message descriptor ----

class YamlReader {
  constructor(
    private readonly doc: Document,
    private readonly lc: LineCounter,
    private readonly file: string,
  ) {}

  pos(node: YamlNode | null | undefined, fallback: Position): Position {
    const offset = node?.range?.[0];
    return offset === undefined ? fallback : this.lc.linePos(offset);
  }

  private resolve(node: unknown): YamlNode | null {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return (node.resolve(this.doc) as YamlNode | undefined) ?? null;
    return node as YamlNode;
  }

  private static isNull(node: YamlNode | null): boolean {
    return node === null || (isScalar(node) && node.value === null);
  }

  readMessage(nodeIn: unknown, schema: MessageSchema, field: string | null, at: Position): ProtoMessage {
    const node = this.resolve(nodeIn);
    const pos = this.pos(node, at);
    const b = new MessageBuilder(schema, this.file, pos);
    if (YamlReader.isNull(node)) return b.value;
    if (!isMap(node)) {
      fail(
        this.file,
        pos,
        field
          ? `Expected a mapping for message field "${field}" (${schema.name}), got: ${this.describe(node!)}`
          : `Expected a mapping (${schema.name}) at the top level, got: ${this.describe(node!)}`,
        field ?? undefined,
      );
    }
    for (const pair of node.items) {
      const key = this.resolve(pair.key);
      const keyPos = this.pos(key, pos);
      if (!key || !isScalar(key) || typeof key.value !== 'string')
        fail(this.file, keyPos, `Expected a field name of ${schema.name}, got: ${key ? this.describe(key) : 'nothing'}`);
      const name = (key as Scalar<string>).value;
      this.readField(b, name, b.field(name, keyPos), pair.value, keyPos);
    }
    return b.value;
  }

  private readField(b: MessageBuilder, name: string, f: FieldSchema, valueIn: unknown, keyPos: Position): void {
    const value = this.resolve(valueIn);
    if (f.kind === 'map') {
      b.touch(name, f, keyPos);
      if (YamlReader.isNull(value)) return;
      if (isMap(value)) {
        for (const pair of value.items) {
          const key = this.resolve(pair.key);
          const kpos = this.pos(key, keyPos);
          if (!key || !isScalar(key)) fail(this.file, kpos, `Expected a scalar key in map field "${name}"`, name);
          const k = convertScalar(this.file, name, f.key, this.raw(key as Scalar, kpos), true);
          const vNode = this.resolve(pair.value);
          const v: ProtoValue =
            f.value.kind === 'scalar' ? this.scalarValue(name, f.value, vNode, kpos) : this.readMessage(vNode, f.value.message, name, kpos);
          b.add(name, f, { key: k, value: v }, kpos);
        }
        return;
      }
      if (isSeq(value)) {
        const entrySchema = mapEntrySchema(b.schema, name, f);
        for (const item of value.items) {
          const ipos = this.pos(this.resolve(item), keyPos);
          b.add(name, f, completeMapEntry(f, this.readMessage(item, entrySchema, name, ipos)), ipos);
        }
        return;
      }
      fail(
        this.file,
        this.pos(value, keyPos),
        `Expected a mapping or a list of {key, value} for map field "${name}", got: ${this.describe(value!)}`,
        name,
      );
    }
    const repeated = 'repeated' in f && f.repeated;
    if (isSeq(value)) {
      if (!repeated) fail(this.file, this.pos(value, keyPos), `Field "${name}" is not repeated; a list is not allowed.`, name);
      b.touch(name, f, keyPos);
      for (const item of value.items) this.readValue(b, name, f, item, this.pos(this.resolve(item), keyPos));
      return;
    }
    if (repeated && YamlReader.isNull(value) && f.kind !== 'message') {
      b.touch(name, f, keyPos);
      return;
    }
    this.readValue(b, name, f, value, keyPos);
  }

  private readValue(b: MessageBuilder, name: string, f: Exclude<FieldSchema, { kind: 'map' }>, valueIn: unknown, keyPos: Position): void {
    const node = this.resolve(valueIn);
    const vpos = this.pos(node, keyPos);
    if (f.kind === 'message') {
      if (f.message.wrapper && node && isScalar(node) && node.value !== null) {
        // `max_batch_size: 128` for `max_batch_size: {value: 128}`
        const w = new MessageBuilder(f.message, this.file, vpos);
        const inner = f.message.fields.value;
        w.add('value', inner, this.scalarValue(name, inner as Extract<FieldSchema, { kind: 'scalar' }>, node, vpos), vpos);
        b.add(name, f, w.value, keyPos);
        return;
      }
      b.add(name, f, this.readMessage(node, f.message, name, vpos), keyPos);
      return;
    }
    b.add(name, f, this.scalarValue(name, f, node, keyPos), keyPos);
  }

  private scalarValue(
    name: string,
    f: { kind: 'scalar'; type: ScalarType } | { kind: 'enum'; enum: EnumSchema },
    node: YamlNode | null,
    at: Position,
  ): string | number | boolean {
    const pos = this.pos(node, at);
    if (node && !isScalar(node)) fail(this.file, pos, `Expected a value for field "${name}", got: ${this.describe(node)}`, name);
    const raw = node ? this.raw(node as Scalar, pos) : { kind: 'null' as const, text: 'null', pos };
    return f.kind === 'enum' ? convertEnum(this.file, name, f.enum, raw) : convertScalar(this.file, name, f.type, raw, true);
  }

  private raw(s: Scalar, pos: Position): RawScalar {
    const v = s.value;
    if (v === null || v === undefined) return { kind: 'null', text: 'null', pos };
    if (typeof v === 'string') return { kind: 'ident', text: s.type === 'PLAIN' ? v : JSON.stringify(v), str: v, pos };
    if (typeof v === 'number') return { kind: 'number', text: s.source ?? String(v), num: v, pos };
    if (typeof v === 'boolean') return { kind: 'ident', text: String(v), pos };
    return { kind: 'ident', text: String(v), pos };
  }

  private describe(node: YamlNode): string {
    if (isMap(node)) return 'a mapping';
    if (isSeq(node)) return 'a list';
    if (isScalar(node))
      return node.value === null
        ? 'null'
        : typeof node.value === 'string' && node.type !== 'PLAIN'
          ? JSON.stringify(node.value)
          : String(node.value);
    return 'a value';
  }
}

/**
 * Parses YAML text as one `schema` message (fields as written, no defaults), with the
 * same shape parseTextProto gives; positionOf() works on the result.
 */
function parseYamlProto(text: string, file: string, schema: MessageSchema): ProtoMessage {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    fail(file, lc.linePos(e.pos[0]), e.message.split('\n')[0]);
  }
  return new YamlReader(doc, lc, file).readMessage(doc.contents, schema, null, { line: 1, col: 1 });
}

// ---- tfgate's config file ----

const YamlModelConfigSchema: MessageSchema = {
  ...ModelConfigSchema,
  fields: { ...ModelConfigSchema.fields, batching: message(TfgateBatchingSchema) },
};
const TfgateConfigSchema: MessageSchema = {
  name: 'tfgate.Config',
  fields: {
    model_config_list: message({ ...ModelConfigListSchema, fields: { config: message(YamlModelConfigSchema, { repeated: true }) } }),
    custom_model_config: message(AnySchema),
    models: message(YamlModelConfigSchema, { repeated: true }),
    batching: message(TfgateBatchingSchema),
    monitoring_config: message(MonitoringConfigSchema),
  },
  oneofs: { config: ['model_config_list', 'custom_model_config', 'models'] },
};

export interface TfgateConfig {
  readonly model_server_config: ModelServerConfig;
  /** The top-level `batching:` section, defaults filled; absent when the file has none. */
  readonly batching?: BatchingParameters;
  /** Per-model `batching:` sections by model name (thread pool taken from the top level). */
  readonly model_batching: Readonly<Record<string, BatchingParameters>>;
  readonly monitoring_config?: MonitoringConfig;
}

/** Parses tfgate's YAML config. Throws ConfigError `file:line:col: …`. */
export function parseYamlConfig(text: string, file: string, options: ModelConfigOptions = {}): TfgateConfig {
  const raw = parseYamlProto(text, file, TfgateConfigSchema);
  const configs = (raw.models ?? (raw.model_config_list as ProtoMessage | undefined)?.config ?? []) as ProtoMessage[];
  const perModel: Array<[ProtoMessage, ProtoMessage]> = [];
  for (const c of configs) {
    if (c.batching) perModel.push([c, c.batching as ProtoMessage]);
    delete c.batching;
  }
  const serverRaw: ProtoMessage = raw.custom_model_config
    ? { custom_model_config: raw.custom_model_config }
    : { model_config_list: { config: configs } };
  const model_server_config = modelServerConfigFromProto(serverRaw, file, options);

  const batching = raw.batching ? batchingParametersFromProto(raw.batching as ProtoMessage, file) : undefined;
  const pool = batching ?? defaultBatchingParameters();
  const model_batching: Record<string, BatchingParameters> = {};
  for (const [c, b] of perModel) {
    for (const shared of ['num_batch_threads', 'thread_pool_name'] as const) {
      if (b[shared] !== undefined) {
        fail(
          file,
          positionOf(b, shared),
          `${shared} cannot be set per model: all models share one batch thread pool (set it in the top-level batching: section)`,
          shared,
        );
      }
    }
    model_batching[c.name as string] = batchingParametersFromProto(b, file, {
      num_batch_threads: pool.num_batch_threads,
      thread_pool_name: pool.thread_pool_name,
    });
  }

  const out: { -readonly [K in keyof TfgateConfig]: TfgateConfig[K] } = { model_server_config, model_batching };
  if (batching) out.batching = batching;
  if (raw.monitoring_config) out.monitoring_config = monitoringConfigFromProto(raw.monitoring_config as ProtoMessage, file);
  return deepFreeze(out);
}

/** Only the model list of a YAML config (what --model_config_file would hold). */
export function parseModelConfigYaml(text: string, file: string, options: ModelConfigOptions = {}): ModelServerConfig {
  return parseYamlConfig(text, file, options).model_server_config;
}
