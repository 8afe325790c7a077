// One loaded TF-DF model and TF's inference kernel over it. TF-DF's kernel (kernel.cc) runs a
// model on Yggdrasil's "semi-fast" path whenever the model compiles to a fast engine, and
// Yggdrasil's WASM build has only fast engines (a model without one is refused at load), so
// this follows SemiFastGenericInferenceEngine step by step:
//   batch size   the largest first dimension of the three banks and of row_splits_dim_2 − 1,
//                ignoring zeros; two different non-zero sizes are an error;
//   numerical    NaN is missing;
//   boolean      NaN is missing, any other value is true unless it is 0;
//   categorical  -1 is missing; a value < -1 or ≥ the column's vocabulary size is 0 (OOV);
//   cat. set     the items of (example, feature) are values[dim_1[e·n + f] : dim_1[e·n + f + 1]],
//                each clamped as above; a set whose first item is < 0 is missing;
//   output       a classifier whose engine gives one probability p answers [1 − p, p] (p
//                clamped to [0, 1]); anything else is the engine's output as is, which must
//                have dense_output_dim values an example.
// Features the model lists but no tree reads are accepted and ignored, as in TF.
import { Code, ServingError, invalidArgument, internal } from '../../../../errors/status.js';
import { intVectorFactory, loadYggdrasilModel, takeValues, type EmVector, type InternalModel } from './yggdrasil_wasm.js';
import { readForestSpec, type Bank, type ForestSpec } from './yggdrasil_model_spec.js';

interface Matrix<T extends Float32Array | Int32Array> {
  values: T;
  shape: readonly number[];
}

/** SimpleMLInferenceOp's six feature inputs. */
export interface ForestInputs {
  numerical: Matrix<Float32Array>;
  boolean: Matrix<Float32Array>;
  categorical: Matrix<Int32Array>;
  categoricalSetValues: ArrayLike<number>;
  rowSplitsDim1: ArrayLike<number>;
  rowSplitsDim2: ArrayLike<number>;
}

export interface ForestOutputs {
  /** [batch, dense_output_dim], example-major. */
  densePredictions: Float32Array;
  batch: number;
  denseColRepresentation: string[];
}

/** A bank column the engine reads: tensor column → the engine's feature index. */
interface UsedFeature {
  column: number;
  engineIdx: number;
  specIdx: number;
}

/** The engine's feature type each bank feeds (kernel.cc: GetNumericalFeatureId …). */
const ENGINE_TYPE: Record<Bank, string> = {
  numerical: 'NUMERICAL',
  boolean: 'BOOLEAN',
  categorical: 'CATEGORICAL',
  categoricalSet: 'CATEGORICAL_SET',
};

export class YggdrasilForest {
  private disposed = false;

  private constructor(
    private readonly model: InternalModel,
    readonly spec: ForestSpec,
    private readonly used: Record<Bank, UsedFeature[]>,
    private readonly intVector: (values: ArrayLike<number>) => EmVector<number>,
  ) {}

  /** Loads and compiles a model from its files (name → bytes); rejects with the reason. */
  static async load(files: ReadonlyMap<string, Uint8Array>, filePrefix: string): Promise<YggdrasilForest> {
    const model = await loadYggdrasilModel(files, filePrefix);
    try {
      const spec = readForestSpec(files, filePrefix);
      const engineFeatures = takeValues(model.getInputFeatures());
      const bySpec = new Map(engineFeatures.map((f) => [f.specIdx, f]));
      const used: Record<Bank, UsedFeature[]> = { numerical: [], boolean: [], categorical: [], categoricalSet: [] };
      for (const bank of Object.keys(used) as Bank[]) {
        spec.banks[bank].forEach((specIdx, column) => {
          const feature = bySpec.get(specIdx);
          if (!feature) return;
          if (feature.type !== ENGINE_TYPE[bank] || spec.columns[specIdx].type !== feature.type) {
            throw new ServingError(
              Code.UNIMPLEMENTED,
              `its engine reads feature '${feature.name}' (${spec.columns[specIdx].type}) as ${feature.type}, which tfgate does not feed`,
            );
          }
          used[bank].push({ column, engineIdx: feature.internalIdx, specIdx });
        });
      }
      return new YggdrasilForest(model, spec, used, await intVectorFactory());
    } catch (e) {
      model.delete();
      throw e;
    }
  }

  /** TF's SimpleMLInferenceOp on these inputs. */
  infer(inputs: ForestInputs, denseOutputDim: number): ForestOutputs {
    if (this.disposed) throw internal('the decision forest was released (its model version was unloaded)');
    const { spec, used } = this;
    const banks: Array<[Bank, Matrix<Float32Array | Int32Array>, string]> = [
      ['numerical', inputs.numerical, 'numerical_features'],
      ['boolean', inputs.boolean, 'boolean_features'],
      ['categorical', inputs.categorical, 'categorical_int_features'],
    ];
    for (const [, m, name] of banks)
      if (m.shape.length !== 2) throw invalidArgument(`${name} must be a matrix, got shape [${m.shape.join(',')}]`);
    let batch = 0;
    for (const size of [...banks.map(([, m]) => m.shape[0]), inputs.rowSplitsDim2.length - 1]) {
      if (size <= 0) continue;
      if (batch === 0) batch = size;
      else if (batch !== size) throw invalidArgument(`The batch size of the input features are inconsistent: ${batch} vs ${size}.`);
    }
    for (const [bank, m, name] of banks) {
      if (m.shape[1] !== spec.banks[bank].length) throw invalidArgument(`Unexpected dimension of ${name} bank.`);
    }
    const reps = spec.denseColRepresentation;
    if (reps.length !== denseOutputDim) {
      throw invalidArgument(`The "dense_output_dim"=${denseOutputDim} attribute does not match the model output dimension=${reps.length}`);
    }
    const densePredictions = new Float32Array(batch * denseOutputDim);
    if (batch === 0) return { densePredictions, batch, denseColRepresentation: reps };
    // A bank the engine reads must hold every example (TF would read past an empty one).
    for (const [bank, m, name] of banks) {
      if (used[bank].length && m.shape[0] !== batch) throw invalidArgument(`${name} has ${m.shape[0]} rows for a batch of ${batch}`);
    }

    const { model } = this;
    model.newBatchOfExamples(batch);
    const num = inputs.numerical;
    for (const f of used.numerical) {
      for (let e = 0; e < batch; e++) {
        const v = num.values[e * num.shape[1] + f.column];
        if (!Number.isNaN(v)) model.setNumerical(e, f.engineIdx, v);
      }
    }
    const cat = inputs.categorical;
    for (const f of used.categorical) {
      const size = spec.vocabularySizes[f.specIdx];
      for (let e = 0; e < batch; e++) {
        const v = cat.values[e * cat.shape[1] + f.column];
        if (v !== -1) model.setCategoricalInt(e, f.engineIdx, v < -1 || v >= size ? 0 : v);
      }
    }
    for (const f of used.categoricalSet) {
      const size = spec.vocabularySizes[f.specIdx];
      for (let e = 0; e < batch; e++) {
        const items = this.categoricalSetItems(inputs, f.column, e, size);
        if (items.length && items[0] < 0) continue;
        const vector = this.intVector(items);
        try {
          model.setCategoricalSetInt(e, f.engineIdx, vector);
        } finally {
          vector.delete();
        }
      }
    }
    const bool = inputs.boolean;
    for (const f of used.boolean) {
      for (let e = 0; e < batch; e++) {
        const v = bool.values[e * bool.shape[1] + f.column];
        if (!Number.isNaN(v)) model.setBoolean(e, f.engineIdx, v !== 0);
      }
    }

    const predictions = takeValues(model.predict());
    const engineDim = predictions.length / batch;
    if (!Number.isInteger(engineDim)) throw internal('Wrong NumPredictionDimension');
    if (spec.task === 'CLASSIFICATION' && engineDim === 1 && spec.outputsProbabilities) {
      for (let e = 0; e < batch; e++) {
        const p = Math.min(Math.max(predictions[e], 0), 1);
        densePredictions[e * 2] = 1 - p;
        densePredictions[e * 2 + 1] = p;
      }
    } else {
      if (engineDim !== denseOutputDim) throw internal('Wrong NumPredictionDimension');
      densePredictions.set(predictions);
    }
    return { densePredictions, batch, denseColRepresentation: reps };
  }

  /** kernel.cc ExtractCategoricalSetInt: the clamped items of one example's set. */
  private categoricalSetItems(inputs: ForestInputs, column: number, example: number, size: number): number[] {
    const perExample = this.spec.banks.categoricalSet.length;
    if (example >= inputs.rowSplitsDim2.length || inputs.rowSplitsDim2[example] !== example * perExample)
      throw internal('Unexpected features_row_splits_dim_2 size.');
    const cell = example * perExample + column;
    if (cell + 1 >= inputs.rowSplitsDim1.length) throw internal('Unexpected features_row_splits_dim_1 size.');
    const begin = inputs.rowSplitsDim1[cell];
    const end = inputs.rowSplitsDim1[cell + 1];
    if (begin < 0 || end < begin || end > inputs.categoricalSetValues.length) {
      throw invalidArgument(
        `categorical_set_int_features_row_splits_dim_1 gives items [${begin}, ${end}) of ${inputs.categoricalSetValues.length} values`,
      );
    }
    const items: number[] = [];
    for (let i = begin; i < end; i++) {
      const v = inputs.categoricalSetValues[i];
      items.push(v < -1 || v >= size ? 0 : v);
    }
    return items;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.model.delete();
  }
}
