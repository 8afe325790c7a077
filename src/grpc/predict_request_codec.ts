// The gRPC PredictRequest deserializer. It runs inside grpc-js on the event loop, before any
// handler could look at the model's signature or the memory budget, so it decodes only what
// is small (the model_spec) and leaves the inputs and the output_filter in the message:
// protobufjs would make an object per string_val element, per map entry and per output_filter
// string — 16 M empty string_val in a 32 MB message took the heap past 4 GB before the dtype
// was ever checked. The message is walked once here, allocating nothing per element, so that
// bytes which are no PredictRequest are refused here as before (grpc-js: INTERNAL "Error
// deserializing request"); the Predict handler then reads the map entries, checks each input
// against the signature from its summary (tensor_proto_wire.ts) and charges the budget before
// decoding any value.
import protobuf from 'protobufjs';
import { protoRoot, TO_OBJECT } from '../proto/index.js';
import type { ModelSpecMessage } from './grpc_messages.js';
import { checkTensorProtoWire } from './tensor_proto_wire.js';
import { WIRE_LENGTH_DELIMITED, WireReader } from './wire.js';

// Field numbers (tensorflow_serving/apis/predict.proto): a map entry is {key = 1, value = 2}.
const REQUEST_INPUTS = 2;
const REQUEST_OUTPUT_FILTER = 3;
const MAP_KEY = 1;
const MAP_VALUE = 2;

/** As the generic codec decodes requests (service_definitions.ts): int64 as decimal strings. */
const OPTIONS: protobuf.IConversionOptions = { ...TO_OBJECT, longs: String };

let requestType: protobuf.Type | undefined;

/** A PredictRequest as deserialized: the model_spec decoded, the rest still in `bytes`. */
export interface PredictRequestWire {
  modelSpec?: ModelSpecMessage;
  /** The message as received (a plain Uint8Array view of it). */
  bytes: Uint8Array;
  /** Entries of the inputs map as sent (a key sent twice counts twice), and their keys' total length. */
  inputEntries: number;
  inputKeyBytes: number;
  /** Strings of output_filter, and their total length. */
  outputFilterEntries: number;
  outputFilterBytes: number;
  /**
   * Whether `bytes`' ArrayBuffer holds this message and at most a gRPC frame header: one that
   * grpc-js allocated for it alone (it joins a message's frames into a fresh buffer of the
   * message and its 5-byte header), which a tensor may then view and take to the executor
   * thread instead of a copy. Never Node's shared Buffer pool (a buffer larger than a slab).
   */
  bufferAlone: boolean;
}

/** The bytes grpc-js puts before a message in the buffer it joins (compressed flag, length). */
const FRAME_HEADER_BYTES = 5;

function ownsItsBuffer(message: Uint8Array): boolean {
  const buffer = message.buffer;
  return (
    buffer instanceof ArrayBuffer &&
    buffer.byteLength > Buffer.poolSize &&
    buffer.byteLength - message.byteLength <= FRAME_HEADER_BYTES &&
    message.byteOffset + message.byteLength === buffer.byteLength
  );
}

const isInputEntry = (tag: number) => tag >>> 3 === REQUEST_INPUTS && (tag & 7) === WIRE_LENGTH_DELIMITED;
const isOutputFilter = (tag: number) => tag >>> 3 === REQUEST_OUTPUT_FILTER && (tag & 7) === WIRE_LENGTH_DELIMITED;

/** Checks one map entry parses, its value as a TensorProto; returns the length of its key(s). */
function checkEntry(bytes: Uint8Array, start: number, end: number): number {
  let keyBytes = 0;
  const r = new WireReader(bytes, start, end);
  while (!r.done) {
    const tag = r.uint32();
    if (tag >>> 3 === MAP_VALUE && (tag & 7) === WIRE_LENGTH_DELIMITED) {
      const length = r.skipLengthDelimited();
      checkTensorProtoWire(bytes, r.pos - length, r.pos);
    } else if (tag >>> 3 === MAP_KEY && (tag & 7) === WIRE_LENGTH_DELIMITED) {
      keyBytes += r.skipLengthDelimited();
    } else {
      r.skip(tag & 7);
    }
  }
  return keyBytes;
}

/** PredictRequest bytes → the model_spec and what the rest holds; throws when they are no PredictRequest. */
export function deserializePredictRequest(message: Buffer | Uint8Array): PredictRequestWire {
  const bytes = new Uint8Array(message.buffer, message.byteOffset, message.byteLength);
  const r = new WireReader(bytes);
  let inputEntries = 0;
  let inputKeyBytes = 0;
  let outputFilterEntries = 0;
  let outputFilterBytes = 0;
  let restBytes = 0;
  while (!r.done) {
    const start = r.pos;
    const tag = r.uint32();
    if (isInputEntry(tag)) {
      const length = r.skipLengthDelimited();
      inputKeyBytes += checkEntry(bytes, r.pos - length, r.pos);
      inputEntries++;
    } else if (isOutputFilter(tag)) {
      outputFilterBytes += r.skipLengthDelimited();
      outputFilterEntries++;
    } else {
      r.skip(tag & 7);
      restBytes += r.pos - start;
    }
  }
  // Every other field (model_spec, fields this proto does not know) alone is a PredictRequest
  // for protobufjs: copied out (no view per field) and decoded.
  const rest = new Uint8Array(restBytes);
  if (restBytes > 0) {
    let at = 0;
    r.pos = 0;
    while (!r.done) {
      const start = r.pos;
      const tag = r.uint32();
      r.skip(tag & 7);
      if (isInputEntry(tag) || isOutputFilter(tag)) continue;
      rest.set(bytes.subarray(start, r.pos), at);
      at += r.pos - start;
    }
  }
  requestType ??= protoRoot().lookupType('tensorflow.serving.PredictRequest');
  const { modelSpec } = requestType.toObject(requestType.decode(rest), OPTIONS) as { modelSpec?: ModelSpecMessage };
  return { modelSpec, bytes, inputEntries, inputKeyBytes, outputFilterEntries, outputFilterBytes, bufferAlone: ownsItsBuffer(bytes) };
}

/**
 * The inputs map: key → its TensorProto's [start, end) in the message. A missing key is "",
 * a missing value an empty TensorProto (proto3's defaults), and of two entries with one key
 * the last counts, as protobuf's map parsing has it.
 */
export function readInputEntries(request: PredictRequestWire): Map<string, [number, number]> {
  const { bytes } = request;
  const entries = new Map<string, [number, number]>();
  const r = new WireReader(bytes);
  const entry = new WireReader(bytes, 0, 0);
  while (!r.done) {
    const tag = r.uint32();
    if (!isInputEntry(tag)) {
      r.skip(tag & 7);
      continue;
    }
    const length = r.skipLengthDelimited();
    entry.pos = r.pos - length;
    entry.end = r.pos;
    let key = '';
    let value: [number, number] = [0, 0];
    while (!entry.done) {
      const t = entry.uint32();
      if ((t & 7) !== WIRE_LENGTH_DELIMITED || (t >>> 3 !== MAP_KEY && t >>> 3 !== MAP_VALUE)) {
        entry.skip(t & 7);
        continue;
      }
      const n = entry.skipLengthDelimited();
      if (t >>> 3 === MAP_KEY) key = protobuf.util.utf8.read(bytes, entry.pos - n, entry.pos);
      else value = [entry.pos - n, entry.pos];
    }
    entries.set(key, value);
  }
  return entries;
}

/** The output_filter strings, in order. */
export function readOutputFilter(request: PredictRequestWire): string[] {
  const { bytes } = request;
  const filter: string[] = [];
  if (request.outputFilterEntries === 0) return filter;
  const r = new WireReader(bytes);
  while (!r.done) {
    const tag = r.uint32();
    if (!isOutputFilter(tag)) {
      r.skip(tag & 7);
      continue;
    }
    const n = r.skipLengthDelimited();
    filter.push(protobuf.util.utf8.read(bytes, r.pos - n, r.pos));
  }
  return filter;
}
