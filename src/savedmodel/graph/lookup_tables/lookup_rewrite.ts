// Lookups in a signature's (flattened, frozen) graph become computations on constants: the
// table's resolved contents (resolve_lookup_tables.ts) go into two Const nodes per table,
// LookupTableFind(V2) becomes TFGATE_LOOKUP_OP over them, LookupTableSize(V2) a Const.
// A lookup whose table nothing fills (a HashTable; an unfilled MutableHashTable is just
// empty) or whose contents tfgate could not compute refuses the signature: serving the
// default for every key is exactly the silent wrong answer this exists to prevent.
import { Code, ServingError, invalidArgument } from '../../../errors/status.js';
import { dtypeToTf } from '../../../tensor/dtype.js';
import type { HostTensor } from '../../../tensor/host_tensor.js';
import { hostTensorToProto } from '../../tensor_proto.js';
import { localName } from '../control_flow_functions.js';
import { sourceOf } from '../variable_restore_map.js';
import type { NodeDef } from '../types.js';
import type { LookupTables } from './resolve_lookup_tables.js';
import { tableInfo } from './table_info.js';
import { elementsOf, TableContents, tensorOf, type TableInfo } from './table_contents.js';
import { FIND_OPS, SIZE_OPS, TABLE_OPS } from './table_ops.js';

/** tfgate's op: (table keys [n], table values [n, …], keys, default) → values of keys' shape (+ value shape). */
export const TFGATE_LOOKUP_OP = 'TfgateLookupTableFind';
const TABLE_CONST_PREFIX = '__tfgate_table/';

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;

function constNode(name: string, value: HostTensor): NodeDef {
  return { name, op: 'Const', input: [], attr: { dtype: { type: dtypeToTf(value.dtype) }, value: { tensor: hostTensorToProto(value) } } };
}

/**
 * Keys and values as constants the embedded runtime holds exactly: it has 32-bit integers
 * only, so an int64 key beyond them can never be asked for (such feeds are refused) and is
 * left out, while an int64 value beyond them would come back wrong and is refused.
 */
function tableConstants(contents: TableContents, where: string): { keys: HostTensor; values: HostTensor } {
  let keys = contents.keyTensor();
  let values = contents.valueTensor();
  const { info } = contents;
  if (info.valueDtype === 'int64') {
    const beyond = (values.values as BigInt64Array).find((v) => v < INT32_MIN || v > INT32_MAX);
    if (beyond !== undefined) {
      throw new ServingError(
        Code.UNIMPLEMENTED,
        `${where}: table '${info.name}' holds the int64 value ${beyond}, beyond the embedded runtime's 32-bit integers`,
      );
    }
  }
  if (info.keyDtype === 'int64') {
    const k = keys.values as BigInt64Array;
    const keep = Array.from(k, (v) => v >= INT32_MIN && v <= INT32_MAX);
    if (keep.includes(false)) {
      const width = values.shape.slice(1).reduce((a, b) => a * b, 1);
      const v = elementsOf(values);
      const rows = keep.flatMap((ok, i) => (ok ? [i] : []));
      keys = tensorOf(
        'int64',
        [rows.length],
        rows.map((i) => k[i]),
      );
      values = tensorOf(
        values.dtype,
        [rows.length, ...values.shape.slice(1)],
        rows.flatMap((i) => v.slice(i * width, (i + 1) * width)),
      );
    }
  }
  return { keys, values };
}

/** The Const nodes holding a table's keys and values, added to the graph once per table. */
function tableConstantNames(
  graph: Map<string, NodeDef>,
  constants: Map<string, { keys: string; values: string }>,
  table: string,
  contents: TableContents,
  where: string,
) {
  let names = constants.get(table);
  if (!names) {
    const { keys, values } = tableConstants(contents, where);
    names = { keys: `${TABLE_CONST_PREFIX}${table}/keys`, values: `${TABLE_CONST_PREFIX}${table}/values` };
    graph.set(names.keys, constNode(names.keys, keys));
    graph.set(names.values, constNode(names.values, values));
    constants.set(table, names);
  }
  return names;
}

/** What TF Text's WordpieceTokenizeWithOffsets becomes: (input_values, vocabulary keys, vocabulary values), its attrs. */
export const TFGATE_WORDPIECE_OP = 'TfgateWordpieceTokenizeWithOffsets';

/**
 * Ops of other libraries that read a table as a vocabulary (input `table`): at load they become
 * tfgate's op (`becomes`), the table input replaced by the table's keys and values constants.
 */
const VOCABULARY_OPS: Readonly<Record<string, { table: number; keyDtype: string; valueDtype: string; becomes: string }>> = {
  // TF Text's LookupTableVocab: string keys, int64 values (-1: not in the vocabulary).
  WordpieceTokenizeWithOffsets: { table: 1, keyDtype: 'string', valueDtype: 'int64', becomes: TFGATE_WORDPIECE_OP },
};

export function rewriteLookups(graph: Map<string, NodeDef>, tables: LookupTables | undefined, signatureKey: string): void {
  const constants = new Map<string, { keys: string; values: string }>();
  for (const node of [...graph.values()]) {
    const find = FIND_OPS.has(node.op);
    const vocabularyOp = VOCABULARY_OPS[node.op];
    if (!find && !SIZE_OPS.has(node.op) && !vocabularyOp) continue;
    const where = `signature '${signatureKey}': ${node.op} (node ${localName(node.name)})`;
    const tableInput = vocabularyOp?.table ?? 0;
    const table = sourceOf(graph, node.input?.[tableInput] ?? '')?.node;
    if (!table || !TABLE_OPS.has(table.op)) {
      throw new ServingError(
        Code.UNIMPLEMENTED,
        `${where} reads a table from ${table ? `${table.op} '${localName(table.name)}'` : 'an unknown tensor'}, which tfgate cannot resolve`,
      );
    }
    let info: TableInfo;
    try {
      info = tableInfo(table);
    } catch (e) {
      throw new ServingError(Code.UNIMPLEMENTED, `${where}: ${(e as Error).message}`);
    }
    if (!tables) throw new ServingError(Code.UNIMPLEMENTED, `${where}: the model's lookup tables were not resolved for this graph`);
    const resolution = tables.of(table);
    let contents: TableContents;
    if (!resolution) {
      if (!info.mutable) {
        throw new ServingError(
          Code.FAILED_PRECONDITION,
          `${where} looks up table '${info.name}' (${table.op}), which nothing in the SavedModel initialises (its init op and restore op fill no such table); TF would fail with "Table not initialized."`,
        );
      }
      contents = new TableContents(info);
    } else if ('unresolved' in resolution) {
      throw new ServingError(
        Code.UNIMPLEMENTED,
        `${where} looks up table '${info.name}' (${table.op}), whose contents tfgate cannot compute at load: ${resolution.unresolved}`,
      );
    } else {
      contents = resolution.contents;
    }

    if (vocabularyOp) {
      if (info.keyDtype !== vocabularyOp.keyDtype || info.valueDtype !== vocabularyOp.valueDtype) {
        throw new ServingError(
          Code.UNIMPLEMENTED,
          `${where} reads table '${info.name}' (${info.keyDtype} → ${info.valueDtype}) as a vocabulary, which takes ${vocabularyOp.keyDtype} → ${vocabularyOp.valueDtype}`,
        );
      }
      const names = tableConstantNames(graph, constants, table.name, contents, where);
      const input = [...(node.input ?? [])];
      input.splice(tableInput, 1, `${names.keys}:0`, `${names.values}:0`);
      graph.set(node.name, { ...node, op: vocabularyOp.becomes, input });
      continue;
    }
    if (!find) {
      graph.set(node.name, constNode(node.name, { dtype: 'int64', shape: [], values: BigInt64Array.of(BigInt(contents.size)) }));
      continue;
    }
    const tin = node.attr?.Tin?.type;
    const tout = node.attr?.Tout?.type;
    if (tin !== dtypeToTf(info.keyDtype) || tout !== dtypeToTf(info.valueDtype)) {
      throw invalidArgument(
        `${where}: keys ${tin} → values ${tout} do not match table '${info.name}' (${dtypeToTf(info.keyDtype)} → ${dtypeToTf(info.valueDtype)})`,
      );
    }
    const names = tableConstantNames(graph, constants, table.name, contents, where);
    graph.set(node.name, {
      name: node.name,
      op: TFGATE_LOOKUP_OP,
      input: [`${names.keys}:0`, `${names.values}:0`, node.input?.[1] ?? '', node.input?.[2] ?? ''],
      attr: { Tin: { type: tin }, Tout: { type: tout } },
    });
  }
}
