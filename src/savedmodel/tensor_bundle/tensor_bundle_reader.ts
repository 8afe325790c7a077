// TensorBundle (TF checkpoint V2) reader, following BundleReader
// (tensorflow/core/util/tensor_bundle/tensor_bundle.cc):
// * the index is read and validated whole at open (table structure, block CRCs, header,
//   every entry parseable with a valid shape); every data shard the header announces must
//   exist;
// * tensor bytes are read on demand with positioned reads, their size checked against dtype
//   and shape, their crc32c verified, and big-endian bundles byte-swapped;
// * partitioned (sliced) variables and dtypes tfgate cannot hold are refused by key.
// * every file is read as version_files.ts reads a version's files: only regular files inside
//   the bundle's root folder (the version folder), never blocking on a FIFO, never past the
//   size the index declares for a tensor.
// Missing files are NOT_FOUND; anything malformed is DATA_LOSS; both name the file.
import fs from 'node:fs';
import path from 'node:path';
import { protoType, TO_OBJECT } from '../../proto/index.js';
import { Code, ServingError, dataLoss, invalidArgument, notFound, unimplemented } from '../../errors/status.js';
import { bytesPerElement, dtypeFromTf, type DType } from '../../tensor/dtype.js';
import { TYPED_ARRAY, type HostTensor, type TensorValues } from '../../tensor/host_tensor.js';
import { FormatError } from './coding.js';
import { crc32c, unmaskCrc } from './crc32c.js';
import { SSTable } from './sstable_reader.js';
import {
  TENSOR_BUNDLE_MIN_PRODUCER,
  TENSOR_BUNDLE_VERSION,
  decodeStringTensor,
  indexFileName,
  shardFileName,
  swapBytes,
} from './bundle_format.js';
import { fileSystemError, openVersionFileSync, readVersionFile, readVersionFileSync } from '../version_files.js';

/** A BundleEntryProto, decoded. */
export interface BundleEntry {
  /** TF DataType name, e.g. DT_FLOAT. */
  dtype: string;
  /** Dimension sizes; [] for a scalar. */
  shape: number[];
  shardId: number;
  offset: number;
  size: number;
  /** Masked crc32c as stored. */
  crc32c: number;
  /** Number of TensorSliceProtos: > 0 for a partitioned variable's full-tensor entry. */
  slices: number;
}

export interface BundleHeader {
  numShards: number;
  endianness: 'LITTLE' | 'BIG';
  version: { producer: number; minConsumer: number; badConsumers: number[] };
}

/** Largest tensor rank TF accepts (TensorShape::MaxDimensions). */
const MAX_DIMENSIONS = 254;

interface RawShape {
  dim?: Array<{ size?: number }>;
  unknownRank?: boolean;
}
interface RawEntry {
  dtype?: string | number;
  shape?: RawShape;
  shardId?: number;
  offset?: number;
  size?: number;
  crc32c?: number;
  slices?: unknown[];
}

/** TensorShape::IsValid for a stored (fully defined) shape; the dims or an error text. */
function validShape(shape: RawShape | undefined): number[] | string {
  if (shape?.unknownRank) return 'unknown rank';
  const dims = (shape?.dim ?? []).map((d) => Number(d.size ?? 0));
  if (dims.length > MAX_DIMENSIONS) return `rank ${dims.length} exceeds ${MAX_DIMENSIONS}`;
  let n = 1;
  for (const d of dims) {
    if (!Number.isSafeInteger(d) || d < 0) return `dimension ${d}`;
    n *= d;
    if (!Number.isSafeInteger(n)) return 'too many elements';
  }
  return dims;
}

export class TensorBundle {
  readonly indexFile: string;

  constructor(
    readonly prefix: string,
    readonly header: BundleHeader,
    private readonly entries: Map<string, BundleEntry>,
    /** The folder every file of the bundle must be inside (the version folder). */
    readonly root: string,
  ) {
    this.indexFile = indexFileName(prefix);
  }

  get numShards(): number {
    return this.header.numShards;
  }

  /** Tensor keys in the index's (bytewise) order, without the header entry. */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  entry(key: string): BundleEntry {
    const e = this.entries.get(key);
    if (!e) throw notFound(`Key ${key} not found in checkpoint ${this.indexFile}`);
    return e;
  }

  /** Keys whose bytes were read and found to match their checksum. */
  private readonly verified = new Set<string>();

  /**
   * Checks the checksum of every tensor not read yet, as TF's RestoreV2 does by restoring
   * every key: a corrupt tensor fails the load (DATA_LOSS) even when no signature reads it.
   * Numeric tensors are checked in chunks of CHECK_CHUNK_BYTES, never held whole.
   */
  verifyChecksums(): void {
    for (const [key, e] of this.entries) {
      if (this.verified.has(key) || e.slices > 0 || e.size === 0) continue;
      if (e.dtype === 'DT_STRING') {
        this.read(key);
        continue;
      }
      const file = shardFileName(this.prefix, e.shardId, this.header.numShards);
      let crc = 0;
      for (let at = 0; at < e.size; at += CHECK_CHUNK_BYTES) {
        crc = crc32c(readRange(this.root, file, e.offset + at, Math.min(CHECK_CHUNK_BYTES, e.size - at), key), crc);
      }
      if (crc !== unmaskCrc(e.crc32c)) throw checksumMismatch(file, key, e, crc);
      this.verified.add(key);
    }
  }

  read(key: string): HostTensor {
    const e = this.entry(key);
    if (e.slices > 0) {
      throw unimplemented(
        `checkpoint key '${key}' in ${this.indexFile} is a partitioned variable stored as ${e.slices} slices; tfgate does not assemble sliced tensors`,
      );
    }
    const dtype = dtypeFromTf(e.dtype);
    if (!dtype) throw unimplemented(`checkpoint key '${key}' in ${this.indexFile} has dtype ${e.dtype}, which tfgate does not read`);
    const count = e.shape.reduce((n, d) => n * d, 1);
    if (dtype === 'string') {
      if (e.size < count)
        throw dataLoss(
          `${this.indexFile}: invalid size in bundle entry: key ${key}; stored size ${e.size}; expected size is at least ${count}`,
        );
    } else if (e.size !== count * bytesPerElement(dtype)) {
      throw dataLoss(
        `${this.indexFile}: invalid size in bundle entry: key ${key}; stored size ${e.size}; expected size ${count * bytesPerElement(dtype)}`,
      );
    }
    const file = shardFileName(this.prefix, e.shardId, this.header.numShards);
    const bytes = readRange(this.root, file, e.offset, e.size, key);
    const bigEndian = this.header.endianness === 'BIG';
    const mismatch = (actual: number) => checksumMismatch(file, key, e, actual);
    if (dtype === 'string') {
      let decoded;
      try {
        decoded = decodeStringTensor(bytes, count, bigEndian);
      } catch (err) {
        throw dataLoss(`${file}: string tensor ${key}: ${(err as Error).message}`);
      }
      if (decoded.crc !== unmaskCrc(e.crc32c)) throw mismatch(decoded.crc);
      this.verified.add(key);
      return { dtype, shape: e.shape, values: decoded.strings };
    }
    const actual = crc32c(bytes);
    if (actual !== unmaskCrc(e.crc32c)) throw mismatch(actual);
    this.verified.add(key);
    if (bigEndian) swapBytes(bytes, bytesPerElement(dtype));
    return { dtype, shape: e.shape, values: typedValues(dtype, bytes) };
  }
}

/** Bytes read at a time when only a checksum is wanted. */
const CHECK_CHUNK_BYTES = 4 * 2 ** 20;

/** TensorBundle's DATA_LOSS for a tensor whose bytes do not match their stored crc32c. */
function checksumMismatch(file: string, key: string, e: BundleEntry, actual: number): ServingError {
  return dataLoss(
    `${file}: checksum does not match for tensor ${key} (${e.size} bytes at offset ${e.offset}): stored ${unmaskCrc(e.crc32c)} vs. calculated on the restored bytes ${actual}`,
  );
}

/** Typed storage over a freshly read (so aligned, unshared) buffer. */
function typedValues(dtype: Exclude<DType, 'string'>, bytes: Uint8Array): TensorValues {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return new TYPED_ARRAY[dtype](whole ? (bytes.buffer as ArrayBuffer) : bytes.slice().buffer);
}

function readRange(root: string, file: string, offset: number, size: number, key: string): Uint8Array {
  let fd: number;
  let fileSize: number;
  try {
    ({ fd, size: fileSize } = openVersionFileSync(root, file));
  } catch (e) {
    throw fileError(e, file, 'checkpoint data file');
  }
  try {
    if (offset + size > fileSize) {
      throw dataLoss(
        `${file}: tensor ${key} at bytes ${offset}..${offset + size} runs past the end of the file (${fileSize} bytes); the file is truncated`,
      );
    }
    const out = new Uint8Array(size);
    let done = 0;
    while (done < size) {
      const n = fs.readSync(fd, out, done, size - done, offset + done);
      if (n === 0) throw dataLoss(`${file}: unexpected end of file reading tensor ${key}`);
      done += n;
    }
    return out;
  } finally {
    fs.closeSync(fd);
  }
}

function fileError(e: unknown, file: string, what: string): ServingError {
  const status = fileSystemError(e, file);
  if (status.code === Code.NOT_FOUND) return notFound(`${what} ${file} not found`);
  return new ServingError(status.code, `${what} ${status.message}`);
}

const utf8 = new TextDecoder();

/** Parses and validates an index file's bytes. */
function parseTensorBundleIndex(prefix: string, bytes: Uint8Array, root: string): TensorBundle {
  const indexFile = indexFileName(prefix);
  let table: SSTable;
  try {
    table = SSTable.open(bytes);
  } catch (e) {
    if (e instanceof FormatError) throw dataLoss(`${indexFile} is corrupt or not a checkpoint index: ${e.message}`);
    throw e;
  }
  const all = table.entries();
  if (all.length === 0 || all[0].key.length !== 0) {
    // The header lives under "" (HEADER_ENTRY_KEY), which sorts before every other key.
    throw dataLoss(`${indexFile} is corrupt: failed to seek to header entry (no entry under key "")`);
  }
  const headerType = protoType('tensorflow.BundleHeaderProto');
  const entryType = protoType('tensorflow.BundleEntryProto');
  let rawHeader: {
    numShards?: number;
    endianness?: string;
    version?: { producer?: number; minConsumer?: number; badConsumers?: number[] };
  };
  try {
    rawHeader = headerType.toObject(headerType.decode(all[0].value), TO_OBJECT);
  } catch (e) {
    throw dataLoss(`${indexFile} is corrupt: unable to parse header (${(e as Error).message})`);
  }
  const header: BundleHeader = {
    numShards: rawHeader.numShards ?? 0,
    endianness: rawHeader.endianness === 'BIG' ? 'BIG' : 'LITTLE',
    version: {
      producer: rawHeader.version?.producer ?? 0,
      minConsumer: rawHeader.version?.minConsumer ?? 0,
      badConsumers: rawHeader.version?.badConsumers ?? [],
    },
  };
  if (rawHeader.endianness !== undefined && rawHeader.endianness !== 'LITTLE' && rawHeader.endianness !== 'BIG') {
    throw dataLoss(`${indexFile}: unknown endianness ${rawHeader.endianness} in header`);
  }
  if (!(header.numShards >= 1)) throw dataLoss(`${indexFile}: header announces ${header.numShards} data shards`);
  // CheckVersions(header.version, kTensorBundleVersion, kTensorBundleMinProducer, "Checkpoint").
  const v = header.version;
  if (v.producer < TENSOR_BUNDLE_MIN_PRODUCER) {
    throw invalidArgument(
      `${indexFile}: checkpoint producer version ${v.producer} below min producer ${TENSOR_BUNDLE_MIN_PRODUCER} supported by tfgate`,
    );
  }
  if (v.minConsumer > TENSOR_BUNDLE_VERSION) {
    throw invalidArgument(
      `${indexFile}: checkpoint min consumer version ${v.minConsumer} above current version ${TENSOR_BUNDLE_VERSION} for checkpoint`,
    );
  }
  if (v.badConsumers.includes(TENSOR_BUNDLE_VERSION)) {
    throw invalidArgument(`${indexFile}: checkpoint disallows consumer version ${TENSOR_BUNDLE_VERSION}`);
  }

  const entries = new Map<string, BundleEntry>();
  for (let i = 1; i < all.length; i++) {
    const key = utf8.decode(all[i].key);
    let raw: RawEntry;
    try {
      raw = entryType.toObject(entryType.decode(all[i].value), TO_OBJECT) as RawEntry;
    } catch (e) {
      throw dataLoss(`${indexFile}: entry for key ${key} not parseable (${(e as Error).message})`);
    }
    const shape = validShape(raw.shape);
    if (typeof shape === 'string') throw dataLoss(`${indexFile}: invalid tensor shape for key ${key}: ${shape}`);
    const entry: BundleEntry = {
      dtype: typeof raw.dtype === 'string' ? raw.dtype : `DataType(${raw.dtype ?? 0})`,
      shape,
      shardId: raw.shardId ?? 0,
      offset: raw.offset ?? 0,
      size: raw.size ?? 0,
      crc32c: raw.crc32c ?? 0,
      slices: raw.slices?.length ?? 0,
    };
    if (!entry.slices) {
      if (entry.shardId < 0 || entry.shardId >= header.numShards) {
        throw dataLoss(`${indexFile}: key ${key} is in data shard ${entry.shardId}, but the header announces ${header.numShards} shards`);
      }
      if (entry.offset < 0 || entry.size < 0 || !Number.isSafeInteger(entry.offset + entry.size)) {
        throw dataLoss(`${indexFile}: key ${key} has an invalid byte range (offset ${entry.offset}, size ${entry.size})`);
      }
    }
    entries.set(key, entry);
  }
  return new TensorBundle(prefix, header, entries, root);
}

/** Every data shard the header announces must be a regular file (opened and closed, never read). */
function checkShards(bundle: TensorBundle): void {
  for (let k = 0; k < bundle.numShards; k++) {
    const file = shardFileName(bundle.prefix, k, bundle.numShards);
    let fd: number;
    try {
      ({ fd } = openVersionFileSync(bundle.root, file));
    } catch (e) {
      throw fileError(e, file, 'checkpoint data file');
    }
    fs.closeSync(fd);
  }
}

/**
 * Opens the bundle at `prefix` (e.g. `<version>/variables/variables`): reads and validates
 * `<prefix>.index` and checks that every data shard exists. Tensors are read by `read(key)`.
 * `root`: the folder its files must be inside (default: the prefix's own folder).
 */
export async function readTensorBundle(prefix: string, root = path.dirname(prefix)): Promise<TensorBundle> {
  const indexFile = indexFileName(prefix);
  let bytes: Uint8Array;
  try {
    bytes = await readVersionFile(root, indexFile);
  } catch (e) {
    throw fileError(e, indexFile, 'checkpoint index');
  }
  const bundle = parseTensorBundleIndex(prefix, bytes, root);
  checkShards(bundle);
  return bundle;
}

export function readTensorBundleSync(prefix: string, root = path.dirname(prefix)): TensorBundle {
  const indexFile = indexFileName(prefix);
  let bytes: Uint8Array;
  try {
    bytes = readVersionFileSync(root, indexFile);
  } catch (e) {
    throw fileError(e, indexFile, 'checkpoint index');
  }
  const bundle = parseTensorBundleIndex(prefix, bytes, root);
  checkShards(bundle);
  return bundle;
}
