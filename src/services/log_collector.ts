// TF Serving's LogCollector (core/log_collector.h) for tfgate's one collector type, "file":
// records appended to TFRecord files (the framing of savedmodel/tfrecord.ts)
//
//   <filename_prefix>.<hostname>.<pid>.<n>.tfrecord      n = 00000, 00001, …
//
// a new file once the next write would take the current one past maxFileBytes (a record is
// never split; one larger than the bound gets a file of its own). A file left non-empty by an
// earlier process with the same host and pid is never appended to: n moves on.
//
// Off the request path. collect() only queues and returns; one drain loop encodes queued
// records, frames them and writes them. The queue is bounded (maxQueuedBytes, and
// MAX_QUEUED_RECORDS): while the disk is slow, or an open or write never returns (a stuck
// mount, a FIFO nobody reads), what does not fit is dropped and reported, and requests go on
// at their own pace. A failed open or write drops the records it carried; the next write
// tries again (a new file after a failed write).
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeTfRecords } from '../savedmodel/tfrecord.js';

/** Records waiting at most, whatever their size: each costs an object and a closure. */
const MAX_QUEUED_RECORDS = 10_000;
/** Bytes of records written in one write (a drain turn encodes at most about this much). */
const WRITE_CHUNK_BYTES = 1 << 20;

export interface LogCollectorLimits {
  /** A file is closed and the next one started before it would pass this size. */
  maxFileBytes: number;
  /** Records waiting to be written hold at most about this many bytes; more are dropped. */
  maxQueuedBytes: number;
}

/** One record to write: its size while it waits (for the bound), and its bytes, made when written. */
export interface PendingRecord {
  model: string;
  bytes: number;
  encode(): Uint8Array;
}

export type DropReason = 'queue_full' | 'write_error';

/** What became of each record, and the errors met (for metrics and the log). */
export interface LogCollectorReports {
  written(model: string): void;
  dropped(model: string, reason: DropReason, error?: NodeJS.ErrnoException): void;
  /** A failed open or write, said once until a write succeeds again. */
  failing(file: string, error: Error): void;
}

export class FileLogCollector {
  private readonly queue: PendingRecord[] = [];
  /** Bytes of queued records and of those being written now. */
  private heldBytes = 0;
  private draining?: Promise<void>;
  private file?: { handle: FileHandle; path: string; bytes: number };
  private nextIndex = 0;
  private failed = false;
  /** Records were dropped for want of room since the last successful write (said once). */
  private overflowing = false;
  private closed = false;
  private readonly stem: string;

  constructor(
    readonly filenamePrefix: string,
    private readonly limits: LogCollectorLimits,
    private readonly reports: LogCollectorReports,
  ) {
    this.stem = `${filenamePrefix}.${os.hostname()}.${process.pid}`;
  }

  /** Whether a record of `bytes` would be queued now (checked before a request is captured). */
  hasRoom(bytes: number): boolean {
    return !this.closed && this.queue.length < MAX_QUEUED_RECORDS && this.heldBytes + bytes <= this.limits.maxQueuedBytes;
  }

  /** Queues a record, or drops it (reported) when the queue has no room. Never waits, never throws. */
  collect(record: PendingRecord): void {
    if (!this.hasRoom(record.bytes)) return this.drop(record.model);
    this.queue.push(record);
    this.heldBytes += record.bytes;
    this.kick();
  }

  /** A record with no room in the queue: dropped, reported; the first of a streak is said. */
  drop(model: string): void {
    this.reports.dropped(model, 'queue_full');
    if (this.overflowing || this.closed) return;
    this.overflowing = true;
    this.reports.failing(
      this.file?.path ?? this.pathOf(this.nextIndex),
      new Error(
        `the queue of records to write is full (${this.queue.length} records, about ${this.heldBytes} bytes): the log is written slower than requests are sampled`,
      ),
    );
  }

  /** Starts the drain loop unless it runs; once it ends, again if records came meanwhile. */
  private kick(): void {
    if (this.draining) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      if (this.queue.length) this.kick();
    });
  }

  /**
   * Takes no more records, writes what is queued and closes the file. Resolves when done — or
   * never, while an open or write hangs: the caller bounds the wait.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.drained();
    await this.file?.handle.close().catch(() => {});
    this.file = undefined;
  }

  /** Resolves once every record queued so far is written or dropped (never, while a write hangs). */
  async drained(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      // One chunk: encoded and framed here, on the event loop, after the requests it logs were answered.
      const taken: PendingRecord[] = [];
      const frames: Uint8Array[] = [];
      let frameBytes = 0;
      let takenBytes = 0;
      while (this.queue.length && frameBytes < WRITE_CHUNK_BYTES) {
        const r = this.queue.shift()!;
        takenBytes += r.bytes;
        let frame: Uint8Array;
        try {
          frame = writeTfRecords([r.encode()]);
        } catch (e) {
          this.reports.dropped(r.model, 'write_error', e as NodeJS.ErrnoException);
          continue;
        }
        taken.push(r);
        frames.push(frame);
        frameBytes += frame.length;
      }
      try {
        await this.write(frames);
        this.failed = false;
        this.overflowing = false;
        for (const r of taken) this.reports.written(r.model);
      } catch (e) {
        for (const r of taken) this.reports.dropped(r.model, 'write_error', e as NodeJS.ErrnoException);
        if (!this.failed) this.reports.failing(this.file?.path ?? this.pathOf(this.nextIndex), e as Error);
        this.failed = true;
        // A failed write may have left part of a record: that file takes no more.
        await this.file?.handle.close().catch(() => {});
        this.file = undefined;
      } finally {
        this.heldBytes -= takenBytes;
      }
    }
  }

  /** Writes the chunk's frames, whole, into the current file, and into new ones as it fills. */
  private async write(frames: Uint8Array[]): Promise<void> {
    let first = 0;
    while (first < frames.length) {
      let file = this.file ?? (await this.open());
      if (file.bytes > 0 && file.bytes + frames[first].length > this.limits.maxFileBytes) file = await this.rotate();
      let end = first;
      let size = 0;
      while (end < frames.length && (end === first || file.bytes + size + frames[end].length <= this.limits.maxFileBytes))
        size += frames[end++].length;
      const buffer = Buffer.concat(frames.slice(first, end), size);
      let at = 0;
      while (at < buffer.length) at += (await file.handle.write(buffer, at, buffer.length - at)).bytesWritten;
      file.bytes += size;
      first = end;
    }
  }

  private async rotate(): Promise<NonNullable<FileLogCollector['file']>> {
    await this.file?.handle.close();
    this.file = undefined;
    return this.open();
  }

  private pathOf(index: number): string {
    return `${this.stem}.${String(index).padStart(5, '0')}.tfrecord`;
  }

  /** The next file whose name is free, or holds nothing yet (an empty file, a FIFO, a device); its folder made if missing. */
  private async open(): Promise<NonNullable<FileLogCollector['file']>> {
    await fs.mkdir(path.dirname(this.stem), { recursive: true });
    for (;;) {
      const file = this.pathOf(this.nextIndex);
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat?.isFile() && stat.size > 0) {
        this.nextIndex++;
        continue;
      }
      const handle = await fs.open(file, 'a');
      this.nextIndex++;
      this.file = { handle, path: file, bytes: 0 };
      return this.file;
    }
  }
}
