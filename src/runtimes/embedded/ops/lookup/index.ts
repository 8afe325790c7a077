// The `lookup` op family: the lookup a hash-table lookup becomes at load, once tfgate has
// computed the table's contents (savedmodel/graph/lookup_tables/).
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { TFGATE_LOOKUP_OP } from '../../../../savedmodel/graph/lookup_tables/lookup_rewrite.js';
import { lookupTableFindOp } from './lookup_table_find.js';

export const LOOKUP_OPS: TfjsOpTable = {
  [TFGATE_LOOKUP_OP]: { execute: lookupTableFindOp },
};
