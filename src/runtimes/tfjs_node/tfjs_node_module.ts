// The part of @tensorflow/tfjs-node(-gpu)'s API tfgate uses, typed here so tfgate builds
// on machines where the optional package is not installed.

export interface NodeTensor {
  readonly shape: number[];
  readonly dtype: string;
  data(): Promise<Float32Array | Int32Array | Uint8Array | Uint8Array[]>;
  dispose(): void;
}

export type NodeTensorMap = Record<string, NodeTensor>;

/** tf.node.TFSavedModel: one signature of a SavedModel loaded into a libtensorflow session. */
export interface NodeSavedModel {
  predict(inputs: NodeTensorMap): NodeTensor | NodeTensor[] | NodeTensorMap;
  dispose(): void;
}

export interface TfjsNodeModule {
  tensor(values: Float32Array | Int32Array | Uint8Array | Uint8Array[], shape: number[], dtype: string): NodeTensor;
  getBackend(): string;
  node: {
    loadSavedModel(path: string, tags?: string[], signature?: string): Promise<NodeSavedModel>;
  };
}
