// TensorFlow's WAV reader (core/lib/wav/wav_io.cc, DecodeLin16WaveAsFloatVector): a RIFF/WAVE
// file of 16-bit little-endian PCM, its samples scaled by 1/32768 into [-1, 1). Read as TF
// reads it — chunk by chunk with its offset arithmetic (a 32-bit int, as in C++), JUNK and the
// broadcast-WAV chunks skipped before "fmt ", any chunk other than "data" skipped after it —
// and failing with TF's messages, word for word.
import { invalidArgument } from '../../../../errors/status.js';

export interface DecodedWav {
  /** Interleaved samples, frame by frame. */
  samples: Float32Array;
  /** Frames (samples per channel). */
  frames: number;
  channels: number;
  sampleRate: number;
}

const INT32_MAX = 2147483647;
/** Chunks TF skips between "WAVE" and "fmt ". */
const SKIPPED_BEFORE_FORMAT = new Set(['JUNK', 'bext', 'iXML', 'qlty', 'mext', 'levl', 'link', 'axml']);

/** Bytes as TF puts them in a message (a std::string of the file's bytes). */
const text = (b: Uint8Array) => Buffer.from(b).toString('latin1');

class WavReader {
  /** TF's `int offset`: wraps as a C++ int does. */
  offset = 0;

  constructor(readonly data: Uint8Array) {}

  /** TF's IncrementOffset (the "overflowed" branch cannot be reached: a wrapped offset compares as a huge size_t). */
  advance(from: number, increment: number): number {
    if (from < 0) throw invalidArgument(`Negative offsets are not allowed: ${from}`);
    if (increment < 0) throw invalidArgument(`Negative increment is not allowed: ${increment}`);
    if (from > this.data.length) throw invalidArgument(`Initial offset is outside data range: ${from}`);
    const to = (from + increment) | 0;
    if (to < 0 || to > this.data.length) throw invalidArgument('Data too short when trying to read string');
    return to;
  }

  string(length: number): Uint8Array {
    const to = this.advance(this.offset, length);
    const s = this.data.subarray(this.offset, to);
    this.offset = to;
    return s;
  }

  expect(want: string): void {
    const found = this.string(want.length);
    if (text(found) !== want) throw invalidArgument(`Header mismatch: Expected ${want} but found ${text(found)}`);
  }

  uint(bytes: 2 | 4): number {
    const b = this.string(bytes);
    return bytes === 2 ? b[0] | (b[1] << 8) : (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0;
  }
}

export function decodeLin16Wav(data: Uint8Array): DecodedWav {
  const r = new WavReader(data);
  r.expect('RIFF');
  r.uint(4); // the file size, unused by TF
  r.expect('WAVE');
  let chunk = text(r.string(4));
  while (chunk !== 'fmt ') {
    if (!SKIPPED_BEFORE_FORMAT.has(chunk)) throw invalidArgument(`Unexpected field ${chunk}`);
    const size = r.uint(4);
    r.offset = r.advance(r.offset, size);
    chunk = text(r.string(4));
  }
  const formatSize = r.uint(4);
  if (formatSize !== 16 && formatSize !== 18)
    throw invalidArgument(`Bad format chunk size for WAV: Expected 16 or 18, but got${formatSize}`);
  const format = r.uint(2);
  if (format !== 1) throw invalidArgument(`Bad audio format for WAV: Expected 1 (PCM), but got${format}`);
  const channels = r.uint(2);
  if (channels < 1) throw invalidArgument(`Bad number of channels for WAV: Expected at least 1, but got ${channels}`);
  const sampleRate = r.uint(4);
  const bytesPerSecond = r.uint(4);
  const bytesPerSample = r.uint(2);
  const bitsPerSample = r.uint(2);
  if (bitsPerSample !== 16) throw invalidArgument(`Can only read 16-bit WAV files, but received ${bitsPerSample}`);
  const expectedBytesPerSample = Math.floor((bitsPerSample * channels + 7) / 8);
  if (bytesPerSample !== expectedBytesPerSample)
    throw invalidArgument(`Bad bytes per sample in WAV header: Expected ${expectedBytesPerSample} but got ${bytesPerSample}`);
  // uint32 arithmetic, wrapping as in C++.
  const expectedBytesPerSecond = Math.imul(bytesPerSample, sampleRate) >>> 0;
  if (bytesPerSecond !== expectedBytesPerSecond) {
    throw invalidArgument(
      `Bad bytes per second in WAV header: Expected ${expectedBytesPerSecond} but got ${bytesPerSecond} (sample_rate=${sampleRate}, bytes_per_sample=${bytesPerSample})`,
    );
  }
  if (formatSize === 18) r.offset = (r.offset + 2) | 0;

  let samples: Float32Array | undefined;
  let frames = 0;
  // `offset < size` compares an int with a size_t: a negative (wrapped) offset ends the loop.
  while (r.offset >= 0 && r.offset < data.length) {
    const id = text(r.string(4));
    const size = r.uint(4);
    if (size > INT32_MAX) throw invalidArgument(`WAV data chunk '${id}' is too large: ${size} bytes, but the limit is ${INT32_MAX}`);
    if (id !== 'data') {
      r.offset = (r.offset + size) | 0;
      continue;
    }
    if (samples) throw invalidArgument('More than one data chunk found in WAV');
    frames = Math.floor(size / bytesPerSample);
    const count = frames * channels;
    // TF checks the samples are there before allocating for them.
    r.advance(r.offset, 2 * count);
    samples = new Float32Array(count);
    const view = new DataView(data.buffer, data.byteOffset + r.offset, 2 * count);
    for (let i = 0; i < count; i++) samples[i] = view.getInt16(2 * i, true) / 32768;
    r.offset += 2 * count;
  }
  if (!samples) throw invalidArgument('No data chunk found in WAV');
  return { samples, frames, channels, sampleRate };
}
