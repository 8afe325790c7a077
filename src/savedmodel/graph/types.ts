// Plain-object views of GraphDef / NodeDef / FunctionDef as protobufjs decodes them (TO_OBJECT).
import type { TensorProtoObject, TensorShapeObject } from '../tensor_proto.js';
import type { HostTensor } from '../../tensor/host_tensor.js';

export interface AttrValue {
  s?: Uint8Array;
  i?: number;
  f?: number;
  b?: boolean;
  type?: string;
  shape?: TensorShapeObject;
  tensor?: TensorProtoObject;
  list?: {
    s?: Uint8Array[];
    i?: number[];
    f?: number[];
    b?: boolean[];
    type?: string[];
    shape?: TensorShapeObject[];
    tensor?: TensorProtoObject[];
    func?: NameAttrList[];
  };
  func?: NameAttrList;
  placeholder?: string;
  value?: string;
}

interface NameAttrList {
  name?: string;
  attr?: Record<string, AttrValue>;
}

export interface NodeDef {
  name: string;
  op: string;
  input?: string[];
  device?: string;
  attr?: Record<string, AttrValue>;
}

export interface ArgDef {
  name: string;
  type?: string;
  typeAttr?: string;
  numberAttr?: string;
  typeListAttr?: string;
  isRef?: boolean;
}

interface AttrDef {
  name: string;
  type?: string;
  defaultValue?: AttrValue;
  allowedValues?: AttrValue;
  hasMinimum?: boolean;
  minimum?: number;
}

export interface OpDef {
  name: string;
  inputArg?: ArgDef[];
  outputArg?: ArgDef[];
  attr?: AttrDef[];
}

export interface FunctionDef {
  signature: OpDef;
  nodeDef?: NodeDef[];
  ret?: Record<string, string>;
  attr?: Record<string, AttrValue>;
}

export interface GraphDef {
  node?: NodeDef[];
  library?: { function?: FunctionDef[] };
  versions?: { producer?: number; minConsumer?: number };
}

export const utf8 = new TextDecoder();
export const attrString = (a: AttrValue | undefined): string => (a?.s ? utf8.decode(a.s) : '');

/** Where variable values come from: the SavedModel's variables bundle. */
export interface VariableReader {
  has(key: string): boolean;
  read(key: string): HostTensor;
}
