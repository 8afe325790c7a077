// MakeJsonFromTensors: the :predict response as text (the format is described in
// json_tensor.ts). Written directly rather than through JSON.stringify, for TF Serving's exact
// bytes (RapidJSON's PrettyWriter layout, WriteDecimal floats, "_bytes" outputs as b64) and for
// speed: a response of millions of rows is written in chunks, giving the event loop back.
import { invalidArgument } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import { dtypeTypeString } from '../tensor/dtype.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { JsonFormat, JsonLayout } from './json_tensor.js';
import { formatFloat32, formatFloat64 } from './float_format.js';
import { indent, rapidjsonString } from './rapidjson_writer.js';
import { releaseBuffer } from '../util/release_buffer.js';

const BYTES_SUFFIX = '_bytes';

/**
 * The :predict response body for `outputs`: row format {"predictions": …} (one entry per batch
 * item; all outputs must share dimension 0) or columnar {"outputs": …}. Outputs are written in
 * name order (TF Serving's map order is unspecified).
 */
export function predictResponseJson(
  outputs: Record<string, HostTensor>,
  format: JsonFormat,
  options: { layout?: JsonLayout } = {},
): string {
  const pretty = (options.layout ?? 'tfserving') === 'tfserving';
  const names = Object.keys(outputs).sort();
  if (names.length === 0) throw invalidArgument(MSG.EMPTY_TENSOR_MAP);
  if (format === 'columnar') {
    if (names.length === 1) {
      const v = new TensorWriter(names[0], outputs[names[0]], pretty).value(0, 1, false);
      return pretty ? `{\n    "outputs": ${v}\n}` : `{"outputs": ${v}}`;
    }
    const members = names.map((n) => `${rapidjsonString(n)}: ${new TensorWriter(n, outputs[n], pretty).value(0, 2, false)}`);
    return pretty ? `{\n    "outputs": {\n        ${members.join(',\n        ')}\n    }\n}` : `{"outputs": {${members.join(', ')}}}`;
  }
  const rows = new RowWriter(outputs, names, format, pretty);
  for (let i = 0; i < rows.batch; i++) rows.next(i);
  return rows.text();
}

/** Rows written per event-loop turn by predictResponseJsonYielding (tens of milliseconds). */
const RESPONSE_SLICE_ROWS = 32 * 1024;

/**
 * predictResponseJson, giving the event loop back every RESPONSE_SLICE_ROWS rows of a row-format
 * response (a response of millions of rows takes seconds to write), as UTF-8 bytes past one
 * chunk of rows. Columnar responses are written at once.
 */
export async function predictResponseJsonYielding(
  outputs: Record<string, HostTensor>,
  format: JsonFormat,
  options: { layout?: JsonLayout } = {},
): Promise<string | Buffer> {
  const names = Object.keys(outputs).sort();
  if (format !== 'row' || names.length === 0) return predictResponseJson(outputs, format, options);
  const rows = new RowWriter(outputs, names, format, (options.layout ?? 'tfserving') === 'tfserving', true);
  for (let i = 0; i < rows.batch; i++) {
    rows.next(i);
    if ((i + 1) % RESPONSE_SLICE_ROWS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  // A response of one chunk is written as it is; a larger one as bytes (RowWriter.bytes).
  return rows.batch > ROWS_PER_CHUNK ? rows.bytes() : rows.text();
}

const ROWS_PER_CHUNK = 4096;

/**
 * predictResponseJson as UTF-8 bytes in a buffer of their own (a body-parser thread writes a
 * large response so, and moves it to the event loop): a large row-format response through
 * RowWriter.bytes, never held as one string.
 */
export function predictResponseBytes(outputs: Record<string, HostTensor>, format: JsonFormat): Uint8Array {
  const names = Object.keys(outputs).sort();
  if (format === 'row' && names.length > 0) {
    const rows = new RowWriter(outputs, names, format, true, true);
    for (let i = 0; i < rows.batch; i++) rows.next(i);
    if (rows.batch > ROWS_PER_CHUNK) return rows.bytes();
    return ownBytes(rows.text());
  }
  return ownBytes(predictResponseJson(outputs, format));
}

/** `text` as UTF-8 in an ArrayBuffer of its own (Buffer.from may share Node's pool), not zeroed first. */
function ownBytes(text: string): Uint8Array {
  const out = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  out.write(text);
  return new Uint8Array(out.buffer, 0, out.byteLength);
}

/** The row-format {"predictions": …}, one batch item at a time. */
class RowWriter {
  readonly batch: number;
  private readonly writers: TensorWriter[];
  private readonly keys: string[];
  /** Rows written since the last chunk was joined. */
  private items: string[] = [];
  /** Joined runs of rows: joining millions of row strings at the end took seconds at once. */
  private readonly chunks: string[] = [];
  /**
   * Or, for bytes(), the answer as UTF-8, each run written into it as soon as it is joined: its
   * strings die young (a scavenge takes them), where 5 Mi rows kept as strings grew the heap by
   * ~100 MB, and no run is held twice. Sized from the first run's bytes per row, grown if short.
   */
  private out?: Buffer;
  private at = 0;
  /** Whether runs are encoded as they are joined (bytes() is then the only answer). */
  private readonly encode: boolean;

  constructor(
    outputs: Record<string, HostTensor>,
    names: string[],
    format: JsonFormat,
    private readonly pretty: boolean,
    /** Whether the answer of a response past one run is bytes(). */
    bytesPastOneRun = false,
  ) {
    if (format !== 'row') throw invalidArgument(MSG.INVALID_REQUEST_FORMAT);
    let batch = -1;
    for (const n of names) {
      const shape = outputs[n].shape;
      if (shape.length === 0) throw invalidArgument(MSG.noShapeInformation(n));
      if (batch >= 0 && batch !== shape[0]) throw invalidArgument(MSG.inconsistentBatchSize(n, shape[0], batch));
      batch = shape[0];
    }
    this.batch = batch;
    this.encode = bytesPastOneRun && batch > ROWS_PER_CHUNK;
    this.writers = names.map((n) => new TensorWriter(n, outputs[n], pretty));
    this.keys = names.map(rapidjsonString);
  }

  /** Between rows: ", " (one output, or compact), "," (several outputs, pretty: each row starts with a newline). */
  private get separator(): string {
    return this.writers.length === 1 || !this.pretty ? ', ' : ',';
  }

  next(i: number): void {
    const { writers, keys, pretty } = this;
    if (writers.length === 1) this.items.push(writers[0].value(1, 2, true));
    else {
      const members = writers.map((w, j) => `${keys[j]}: ${w.value(1, 3, true)}`);
      this.items.push(pretty ? `\n        {\n            ${members.join(',\n            ')}\n        }` : `{${members.join(', ')}}`);
    }
    if (this.items.length === ROWS_PER_CHUNK || i === this.batch - 1) {
      const run = this.items.join(this.separator);
      if (this.encode) this.encodeRun(run, i + 1);
      else this.chunks.push(run);
      this.items = [];
    }
  }

  private get head(): string {
    return this.pretty ? '{\n    "predictions": [' : '{"predictions": [';
  }

  private get tail(): string {
    return this.pretty ? '\n    ]\n}' : ']}';
  }

  /** Writes a run ending at row `rows` (the head before the first, the separator before the others). */
  private encodeRun(run: string, rows: number): void {
    const text = this.out ? this.separator + run : this.head + run;
    const bytes = Buffer.byteLength(text);
    if (!this.out) {
      // The first run's bytes per row for every row, and a little more: one buffer in the common case.
      const estimate = Math.ceil((bytes / rows) * this.batch * 1.02) + Buffer.byteLength(this.tail);
      this.out = Buffer.allocUnsafeSlow(Math.max(estimate, bytes));
    } else this.reserve(bytes);
    this.at += this.out.write(text, this.at);
  }

  /** Room for `bytes` more, the buffer grown (copied, the old one let go) when short. */
  private reserve(bytes: number): void {
    const out = this.out!;
    if (this.at + bytes <= out.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.at + bytes, Math.ceil(out.length * 1.25)));
    out.copy(grown, 0, 0, this.at);
    releaseBuffer(out.buffer);
    this.out = grown;
  }

  /**
   * The response as UTF-8 bytes (a view from the start of a buffer of its own, which may run
   * past them): a large response is held once, where text() joins its runs into one string that
   * the socket write then flattens and encodes again (5 Mi rows: 35 MB each time).
   */
  bytes(): Buffer {
    if (!this.encode || !this.out) throw new Error('RowWriter.bytes() of a writer that keeps text');
    const tail = Buffer.byteLength(this.tail);
    this.reserve(tail);
    this.at += this.out!.write(this.tail, this.at);
    return this.out!.subarray(0, this.at);
  }

  text(): string {
    if (this.encode) throw new Error('RowWriter.text() of a writer that encodes');
    const body = this.chunks.join(this.separator);
    if (!this.pretty) return `{"predictions": [${body}]}`;
    return this.batch === 0 ? '{\n    "predictions": []\n}' : `{\n    "predictions": [${body}\n    ]\n}`;
  }
}

/** One tensor as JSON text (a columnar value), e.g. for `tfgate run`. Compact unless asked. */
export function tensorJson(name: string, t: HostTensor, layout: JsonLayout = 'compact'): string {
  return new TensorWriter(name, t, layout === 'tfserving').value(0, 0, false);
}

const textDecoder = new TextDecoder();

/**
 * AddTensorValues over one tensor, consuming its values in order. `depth` is the number of
 * containers open around the value being written (it sets PrettyWriter's indentation) and
 * `single` is kFormatSingleLineArray.
 */
class TensorWriter {
  private offset = 0;
  private readonly asBytes: boolean;

  constructor(
    name: string,
    private readonly t: HostTensor,
    private readonly pretty: boolean,
  ) {
    this.asBytes = t.dtype === 'string' && name.endsWith(BYTES_SUFFIX);
  }

  value(dim: number, depth: number, single: boolean): string {
    const shape = this.t.shape;
    if (dim >= shape.length) return this.leaf(this.offset++, depth);
    const n = shape[dim];
    if (n === 0) return '[]';
    const oneLine = single || !this.pretty;
    const open = oneLine ? '[' : `[\n${indent(depth + 1)}`;
    const sep = oneLine ? ', ' : `,\n${indent(depth + 1)}`;
    const close = oneLine ? ']' : `\n${indent(depth)}]`;
    if (dim === shape.length - 1) return open + this.run(n, depth + 1, sep) + close;
    const parts: string[] = new Array(n);
    for (let k = 0; k < n; k++) parts[k] = this.value(dim + 1, depth + 1, single);
    return open + parts.join(sep) + close;
  }

  /** The next `n` values, joined by `sep`. */
  private run(n: number, depth: number, sep: string): string {
    const t = this.t;
    const start = this.offset;
    this.offset += n;
    switch (t.dtype) {
      case 'int8':
      case 'int16':
      case 'int32':
      case 'uint8':
      case 'uint16':
      case 'uint32':
      case 'int64':
      case 'uint64':
        return (t.values as Int32Array).subarray(start, start + n).join(sep);
      default: {
        const parts: string[] = new Array(n);
        for (let k = 0; k < n; k++) parts[k] = this.leaf(start + k, depth);
        return parts.join(sep);
      }
    }
  }

  /** AddSingleValueAndAdvance for element i; `depth` as in value(). */
  private leaf(i: number, depth: number): string {
    const t = this.t;
    switch (t.dtype) {
      case 'float32':
        return formatFloat32((t.values as Float32Array)[i]);
      case 'float64':
        return formatFloat64((t.values as Float64Array)[i]);
      case 'bool':
        return (t.values as Uint8Array)[i] ? 'true' : 'false';
      case 'string': {
        const bytes = (t.values as Uint8Array[])[i];
        if (!this.asBytes) return rapidjsonString(textDecoder.decode(bytes));
        const b64 = `"${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}"`;
        return this.pretty ? `{\n${indent(depth + 1)}"b64": ${b64}\n${indent(depth)}}` : `{"b64": ${b64}}`;
      }
      case 'float16':
      case 'bfloat16':
        throw invalidArgument(MSG.failedToWriteJsonValue(dtypeTypeString(t.dtype)));
      default:
        return String((t.values as Int32Array)[i]);
    }
  }
}
