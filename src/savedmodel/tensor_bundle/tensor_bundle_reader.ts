// TensorBundle (TF checkpoint V2) reader: `<prefix>.index` maps each key to a
// BundleEntryProto (dtype, shape, shard, offset, size, crc32c); the tensor bytes live in
// `<prefix>.data-0000K-of-0000N`. Key "" holds the BundleHeaderProto.
import fs from 'node:fs';
import { protoType, TO_OBJECT } from '../../proto/index.js';
import { Code, ServingError, dataLoss } from '../../core/status.js';
import { dtypeFromTf } from '../../tensor/dtype.js';
import { numElements, type HostTensor } from '../../tensor/host_tensor.js';
import { shapeFromProto, valuesFromBytes, type TensorShapeObject } from '../tensor_proto.js';
import { crc32c, unmaskCrc } from './crc32c.js';
import { shardFileName, stringTensorChecksums } from './bundle_format.js';
import { ByteReader, readTable, TableFormatError } from './sstable_reader.js';

export interface BundleEntry {
  dtype: string;
  shape: TensorShapeObject;
  shardId?: number;
  offset?: number;
  size?: number;
  crc32c?: number;
  slices?: unknown[];
}


export class TensorBundle {
  private readonly shards = new Map<number, Uint8Array>();

  constructor(
    readonly prefix: string,
    readonly numShards: number,
    private readonly entries: Map<string, BundleEntry>,
  ) {}

  keys(): string[] {
    return [...this.entries.keys()];
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  entry(key: string): BundleEntry {
    const e = this.entries.get(key);
    if (!e) throw new ServingError(Code.NOT_FOUND, `Key ${key} not found in checkpoint ${this.prefix}.index`);
    return e;
  }

  private shard(id: number): Uint8Array {
    let data = this.shards.get(id);
    if (!data) {
      const file = shardFileName(this.prefix, id, this.numShards);
      try {
        data = fs.readFileSync(file);
      } catch {
        throw new ServingError(Code.NOT_FOUND, `checkpoint data file ${file} is missing or unreadable`);
      }
      this.shards.set(id, data);
    }
    return data;
  }

  read(key: string): HostTensor {
    const e = this.entry(key);
    if (e.slices?.length) throw new ServingError(Code.UNIMPLEMENTED, `checkpoint key ${key} is stored as partitioned slices, which tfgate does not read`);
    const dtype = dtypeFromTf(e.dtype);
    if (!dtype) throw new ServingError(Code.UNIMPLEMENTED, `checkpoint key ${key} has dtype ${e.dtype}, which tfgate does not read`);
    const shape = shapeFromProto(e.shape) ?? [];
    const id = e.shardId ?? 0;
    const file = shardFileName(this.prefix, id, this.numShards);
    const offset = e.offset ?? 0;
    const size = e.size ?? 0;
    const data = this.shard(id);
    if (offset + size > data.length) throw dataLoss(`${file}: tensor ${key} at bytes ${offset}..${offset + size} runs past the end of the file (${data.length} bytes)`);
    const bytes = data.subarray(offset, offset + size);
    const count = numElements(shape);
    const checksumFailed = () => dataLoss(`${file}: checksum does not match for tensor ${key}`);
    if (dtype === 'string') {
      const values = readStrings(bytes, count, key, file);
      if (e.crc32c !== undefined && unmaskCrc(e.crc32c) !== stringTensorChecksums(values).entryCrc) throw checksumFailed();
      return { dtype, shape, values };
    }
    if (e.crc32c !== undefined && unmaskCrc(e.crc32c) !== crc32c(bytes)) throw checksumFailed();
    try {
      return { dtype, shape, values: valuesFromBytes(dtype, bytes, count) };
    } catch (err) {
      throw dataLoss(`${file}: tensor ${key}: ${(err as Error).message}`);
    }
  }
}

/** String tensors: n varint64 lengths, a masked crc32c of them (4 bytes), then the bytes. */
function readStrings(bytes: Uint8Array, count: number, key: string, file: string): Uint8Array[] {
  try {
    const r = new ByteReader(bytes);
    const lengths = Array.from({ length: count }, () => r.varint());
    if (count > 0) r.take(4);
    return lengths.map((n) => r.take(n).slice());
  } catch (e) {
    throw dataLoss(`${file}: string tensor ${key} is malformed (${(e as Error).message})`);
  }
}

export async function readTensorBundle(prefix: string): Promise<TensorBundle> {
  const indexFile = `${prefix}.index`;
  let bytes: Uint8Array;
  try {
    bytes = await fs.promises.readFile(indexFile);
  } catch {
    throw new ServingError(Code.NOT_FOUND, `checkpoint index ${indexFile} is missing or unreadable`);
  }
  let table: Array<[string, Uint8Array]>;
  try {
    table = readTable(bytes);
  } catch (e) {
    if (e instanceof TableFormatError) throw dataLoss(`${indexFile} is corrupt: ${e.message}`);
    throw e;
  }
  const headerType = protoType('tensorflow.BundleHeaderProto');
  const entryType = protoType('tensorflow.BundleEntryProto');
  const entries = new Map<string, BundleEntry>();
  let numShards = 1;
  try {
    for (const [key, value] of table) {
      if (key === '') {
        const header = headerType.toObject(headerType.decode(value), TO_OBJECT) as { numShards?: number; endianness?: string };
        if (header.endianness === 'BIG') throw dataLoss(`${indexFile}: big-endian bundles are not supported`);
        numShards = header.numShards ?? 1;
      } else {
        entries.set(key, entryType.toObject(entryType.decode(value), TO_OBJECT) as BundleEntry);
      }
    }
  } catch (e) {
    if (e instanceof ServingError) throw e;
    throw dataLoss(`${indexFile}: bad bundle entry (${(e as Error).message})`);
  }
  return new TensorBundle(prefix, numShards, entries);
}
