// What TF's kernel (tensorflow_decision_forests/tensorflow/ops/inference/kernel.cc) reads from
// a Yggdrasil model besides its trees, from the model's header.pb and data_spec.pb:
//   - FeatureIndex: the model's input_features, in their order, split by type into the op's
//     four banks (numerical and discretized numerical; boolean; categorical; categorical set).
//     Column j of a bank tensor is the j-th input feature of that type. Any other type fails
//     the load, as TF's "Non supported feature type".
//   - each categorical column's vocabulary size: a value outside [-1, size) is read as 0
//     (out of vocabulary);
//   - dense_col_representation: the label's class names (index 1…; 0 is out of vocabulary) for
//     classification, or "logit" for a two-class model that outputs logits; one "" otherwise;
//   - whether a one-dimensional classifier output is P(class 2), given back as [1 − p, p].
import { Code, ServingError } from '../../../../errors/status.js';
import { protoType, TO_OBJECT } from '../../../../proto/index.js';

interface ColumnObject {
  type?: string;
  name?: string;
  categorical?: { numberOfUniqueValues?: number; isAlreadyIntegerized?: boolean; items?: Record<string, { index?: number }> };
}

interface HeaderObject {
  name?: string;
  task?: string;
  labelColIdx?: number;
  inputFeatures?: number[];
  classificationOutputsProbabilities?: boolean;
}

/** The op's input banks, in input order. */
export type Bank = 'numerical' | 'boolean' | 'categorical' | 'categoricalSet';

const BANK_OF_TYPE: Record<string, Bank> = {
  NUMERICAL: 'numerical',
  DISCRETIZED_NUMERICAL: 'numerical',
  BOOLEAN: 'boolean',
  CATEGORICAL: 'categorical',
  CATEGORICAL_SET: 'categoricalSet',
};

export interface ForestSpec {
  /** Yggdrasil's model kind (RANDOM_FOREST, GRADIENT_BOOSTED_TREES …) and task (CLASSIFICATION …). */
  modelName: string;
  task: string;
  /** For each bank, the data spec column of each tensor column (TF's FeatureIndex). */
  banks: Record<Bank, number[]>;
  /** Data spec column → its type name and name. */
  columns: Array<{ type: string; name: string }>;
  /** Data spec column → number_of_unique_values (categorical columns; 0 elsewhere). */
  vocabularySizes: number[];
  /** The dense_col_representation output. */
  denseColRepresentation: string[];
  /** A classifier's one-dimensional output is a probability, to be given back as [1 − p, p]. */
  outputsProbabilities: boolean;
}

function decode<T>(type: string, bytes: Uint8Array, file: string): T {
  const t = protoType(type);
  try {
    return t.toObject(t.decode(bytes), { ...TO_OBJECT, defaults: true }) as T;
  } catch (e) {
    throw new ServingError(Code.DATA_LOSS, `${file} is not a Yggdrasil ${type.split('.').pop()}: ${(e as Error).message}`);
  }
}

/** yggdrasil_decision_forests/dataset/data_spec.cc CategoricalIdxToRepresentation (no quotes). */
function categoricalRepresentation(column: ColumnObject, index: number): string {
  if (column.categorical?.isAlreadyIntegerized) return String(index);
  const item = Object.entries(column.categorical?.items ?? {}).find(([, v]) => Number(v.index ?? 0) === index);
  return item ? item[0] : `NA(${index})`;
}

/** The spec of the model whose files are `files`; `prefix` as the load op passes it. */
export function readForestSpec(files: ReadonlyMap<string, Uint8Array>, prefix: string): ForestSpec {
  const file = (name: string) => {
    const bytes = files.get(`${prefix}${name}`);
    if (!bytes) throw new ServingError(Code.NOT_FOUND, `${prefix}${name} is missing`);
    return bytes;
  };
  const header = decode<HeaderObject>('yggdrasil_decision_forests.AbstractModel', file('header.pb'), `${prefix}header.pb`);
  const dataSpec = decode<{ columns?: ColumnObject[] }>(
    'yggdrasil_decision_forests.DataSpecification',
    file('data_spec.pb'),
    `${prefix}data_spec.pb`,
  );
  const columns = dataSpec.columns ?? [];
  const column = (i: number) => {
    if (!Number.isInteger(i) || i < 0 || i >= columns.length)
      throw new ServingError(Code.DATA_LOSS, `header.pb names column ${i}, which data_spec.pb (${columns.length} columns) does not have`);
    return columns[i];
  };
  const banks: Record<Bank, number[]> = { numerical: [], boolean: [], categorical: [], categoricalSet: [] };
  for (const idx of header.inputFeatures ?? []) {
    const c = column(idx);
    const bank = BANK_OF_TYPE[c.type ?? 'UNKNOWN'];
    if (!bank) throw new ServingError(Code.UNIMPLEMENTED, `Non supported feature type "${c.type}" for feature "${c.name}".`);
    banks[bank].push(idx);
  }
  const task = header.task ?? 'UNDEFINED';
  const outputsProbabilities = header.classificationOutputsProbabilities !== false;
  let denseColRepresentation = [''];
  if (task === 'CLASSIFICATION') {
    const label = column(header.labelColIdx ?? 0);
    const classes = Number(label.categorical?.numberOfUniqueValues ?? 0) - 1;
    denseColRepresentation =
      classes === 2 && !outputsProbabilities
        ? ['logit']
        : Array.from({ length: Math.max(classes, 0) }, (_, i) => categoricalRepresentation(label, i + 1));
  }
  return {
    modelName: header.name ?? '',
    task,
    banks,
    columns: columns.map((c) => ({ type: c.type ?? 'UNKNOWN', name: c.name ?? '' })),
    vocabularySizes: columns.map((c) => Number(c.categorical?.numberOfUniqueValues ?? 0)),
    denseColRepresentation,
    outputsProbabilities,
  };
}
