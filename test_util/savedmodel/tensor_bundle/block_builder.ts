// Builds one block of a LevelDB-format table (tensorflow/core/lib/io/block_builder.cc); the
// layout is described with its reader, src/savedmodel/tensor_bundle/block.ts.
import { ByteSink } from '../../../src/savedmodel/tensor_bundle/coding.js';

export class BlockBuilder {
  private sink = new ByteSink(4096);
  private restarts: number[] = [0];
  private counter = 0;
  private lastKey: Uint8Array = new Uint8Array(0);
  private finished = false;

  constructor(private readonly restartInterval: number) {
    if (!(restartInterval >= 1)) throw new RangeError('block restart interval must be at least 1');
  }

  get empty(): boolean {
    return this.sink.length === 0;
  }

  /** REQUIRES: key is larger than any key added so far. */
  add(key: Uint8Array, value: Uint8Array): void {
    if (this.finished) throw new Error('BlockBuilder.add after finish');
    let shared = 0;
    if (this.counter < this.restartInterval) {
      const max = Math.min(this.lastKey.length, key.length);
      while (shared < max && this.lastKey[shared] === key[shared]) shared++;
    } else {
      this.restarts.push(this.sink.length);
      this.counter = 0;
    }
    this.sink
      .varint(shared)
      .varint(key.length - shared)
      .varint(value.length);
    this.sink.bytes(key.subarray(shared)).bytes(value);
    this.lastKey = key.slice();
    this.counter++;
  }

  /** Size of the block if it were finished now (CurrentSizeEstimate). */
  currentSizeEstimate(): number {
    return this.sink.length + 4 * this.restarts.length + 4;
  }

  finish(): Uint8Array {
    for (const r of this.restarts) this.sink.fixed32(r);
    this.sink.fixed32(this.restarts.length);
    this.finished = true;
    return this.sink.finish();
  }

  reset(): void {
    this.sink = new ByteSink(4096);
    this.restarts = [0];
    this.counter = 0;
    this.lastKey = new Uint8Array(0);
    this.finished = false;
  }
}
