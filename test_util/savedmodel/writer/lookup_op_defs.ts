// OpDefs of the lookup-table ops the writer emits (tensorflow/core/ops/lookup_ops.cc, TF 2.15),
// stripped as stripped_op_list holds them. Every op that takes or makes a resource is stateful
// (TF's OpDefBuilder marks ops with a DT_RESOURCE argument so, as ops_history_v2/*.pbtxt record).
import type { AttrDefInit, OpDefInit } from './op_defs.js';

const enc = new TextEncoder();
const handle = { name: 'table_handle', type: 'DT_RESOURCE' };
const typeAttr = (name: string): AttrDefInit => ({ name, type: 'type' });
const emptyString = (name: string): AttrDefInit => ({ name, type: 'string', defaultValue: { s: new Uint8Array(0) } });
const tableAttrs: AttrDefInit[] = [
  emptyString('container'),
  emptyString('shared_name'),
  { name: 'use_node_name_sharing', type: 'bool', defaultValue: { b: false } },
  typeAttr('key_dtype'),
  typeAttr('value_dtype'),
];

export const LOOKUP_OP_DEFS: OpDefInit[] = [
  { name: 'HashTableV2', outputArg: [handle], attr: tableAttrs, isStateful: true },
  { name: 'MutableHashTableV2', outputArg: [handle], attr: tableAttrs, isStateful: true },
  {
    name: 'LookupTableFindV2',
    inputArg: [handle, { name: 'keys', typeAttr: 'Tin' }, { name: 'default_value', typeAttr: 'Tout' }],
    outputArg: [{ name: 'values', typeAttr: 'Tout' }],
    attr: [typeAttr('Tin'), typeAttr('Tout')],
    isStateful: true,
  },
  {
    name: 'LookupTableImportV2',
    inputArg: [handle, { name: 'keys', typeAttr: 'Tin' }, { name: 'values', typeAttr: 'Tout' }],
    attr: [typeAttr('Tin'), typeAttr('Tout')],
    isStateful: true,
  },
  {
    name: 'InitializeTableV2',
    inputArg: [handle, { name: 'keys', typeAttr: 'Tkey' }, { name: 'values', typeAttr: 'Tval' }],
    attr: [typeAttr('Tkey'), typeAttr('Tval')],
    isStateful: true,
  },
  {
    name: 'LookupTableExportV2',
    inputArg: [handle],
    outputArg: [
      { name: 'keys', typeAttr: 'Tkeys' },
      { name: 'values', typeAttr: 'Tvalues' },
    ],
    attr: [typeAttr('Tkeys'), typeAttr('Tvalues')],
    isStateful: true,
  },
  { name: 'LookupTableSizeV2', inputArg: [handle], outputArg: [{ name: 'size', type: 'DT_INT64' }], isStateful: true },
  {
    name: 'InitializeTableFromTextFileV2',
    inputArg: [handle, { name: 'filename', type: 'DT_STRING' }],
    attr: [
      { name: 'key_index', type: 'int', hasMinimum: true, minimum: -2 },
      { name: 'value_index', type: 'int', hasMinimum: true, minimum: -2 },
      { name: 'vocab_size', type: 'int', defaultValue: { i: -1 }, hasMinimum: true, minimum: -1 },
      { name: 'delimiter', type: 'string', defaultValue: { s: enc.encode('\t') } },
      { name: 'offset', type: 'int', defaultValue: { i: 0 } },
    ],
    isStateful: true,
  },
];
