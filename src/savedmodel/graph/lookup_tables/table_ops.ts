// The TF ops that make, fill and read lookup tables, and which table a handle stands for.
import { attrString, type NodeDef } from '../types.js';

/** Ops whose output is a table handle. */
export const TABLE_OPS = new Set([
  'HashTableV2',
  'HashTable',
  'MutableHashTableV2',
  'MutableHashTable',
  'MutableHashTableOfTensorsV2',
  'MutableHashTableOfTensors',
]);
/** Tables a checkpoint restore or import replaces wholesale (no "already initialised"). */
export const MUTABLE_TABLE_OPS = new Set([
  'MutableHashTableV2',
  'MutableHashTable',
  'MutableHashTableOfTensorsV2',
  'MutableHashTableOfTensors',
]);

/** (table, keys, values) */
export const IMPORT_OPS = new Set(['LookupTableImportV2', 'LookupTableImport']);
/** (table, keys, values) */
export const INITIALIZE_OPS = new Set(['InitializeTableV2', 'InitializeTable']);
/** (table, filename) */
export const TEXT_FILE_INIT_OPS = new Set(['InitializeTableFromTextFileV2', 'InitializeTableFromTextFile']);

/** (table, keys, default) → values */
export const FIND_OPS = new Set(['LookupTableFindV2', 'LookupTableFind']);
/** (table) → int64 size */
export const SIZE_OPS = new Set(['LookupTableSizeV2', 'LookupTableSize']);

/**
 * Which table a table-making node creates. With a shared_name, every node of that name
 * (in the serving function and in the initializer function alike) opens one table; without,
 * the node itself is the table.
 */
export function tableIdentity(node: NodeDef): string {
  const shared = attrString(node.attr?.shared_name);
  return shared ? `shared:${attrString(node.attr?.container)}/${shared}` : `node:${node.name}`;
}

/** Every op that makes, fills or reads a table: none may reach an executor (TF.js would use empty tables). */
export const TABLE_STATE_OPS = new Set([
  ...TABLE_OPS,
  ...IMPORT_OPS,
  ...INITIALIZE_OPS,
  ...TEXT_FILE_INIT_OPS,
  ...FIND_OPS,
  ...SIZE_OPS,
  'LookupTableInsertV2',
  'LookupTableInsert',
  'LookupTableRemoveV2',
  'LookupTableExportV2',
  'LookupTableExport',
]);
