/**
 * The EVE file: newline-delimited JSON appended off the hot path. `write` only queues a line (bounded in bytes; a line
 * past the bound is dropped and counted, so a slow or full disk never holds up capture or detection); one async loop
 * writes the queue in chunks, rotates by size and reopens the path on request (SIGHUP, after logrotate moved the file).
 *
 * Rotation keeps `keep` old files, newest first: `eve.json.1` .. `eve.json.<keep>`; the oldest is deleted. A rotation
 * happens between lines, so no line is split across two files; a single line longer than the size limit is written
 * alone to a fresh file. Learned from Suricata's `src/util-logopenfile.c` (rotate on size, reopen on SIGHUP) and
 * Vector's `file` sink; written here from scratch.
 */
import { open, rename, rm, type FileHandle } from 'node:fs/promises';

/** What {@link EveWriter} needs. */
export interface EveWriterOptions {
  /** Absolute path of the live file. */
  file: string;
  /** Size (bytes) the live file may reach before it is rotated. */
  maxBytes: number;
  /** Rotated files kept (`.1` .. `.keep`); 0: a full file is deleted. */
  keep: number;
  /** Most bytes waiting in the queue; a line that would pass it is dropped. */
  queueBytes: number;
  /** File mode of a newly created file. Default 0o640 (a log shipper in the owner's group may read it). */
  mode?: number;
  /** Failures of the disk (once per kind of failure until a write succeeds again). */
  log?: (message: string, err?: unknown) => void;
}

/** Counters of the writer since it was created (health, tests). */
export interface EveWriterStats {
  /** Lines written to disk, and their bytes (newlines included). */
  written: number;
  bytes: number;
  /** Lines dropped: the queue was full, or the disk refused them. */
  dropped: number;
  rotations: number;
  reopens: number;
  /** Failed opens, writes, renames. */
  errors: number;
  /** Bytes waiting now. */
  queuedBytes: number;
}

/** Most bytes handed to one `write(2)`. */
const CHUNK_BYTES = 256 * 1024;

export class EveWriter {
  private readonly opts: EveWriterOptions;
  private readonly counters = { written: 0, bytes: 0, dropped: 0, rotations: 0, reopens: 0, errors: 0 };
  private queue: string[] = [];
  /** Byte length of each queued line, its newline included (parallel to `queue`). */
  private sizes: number[] = [];
  private queueHead = 0;
  private queuedBytes = 0;
  private handle: FileHandle | null = null;
  /** Bytes in the live file (its size when opened, plus what this writer appended). */
  private size = 0;
  /** Lines accepted and lines taken off the queue, since creation. */
  private seqIn = 0;
  private seqOut = 0;
  /** A reopen was asked for once `seqOut` reaches this (lines accepted before the request go to the old file). */
  private reopenAt: number | null = null;
  private loop: Promise<void> | null = null;
  private closed = false;
  private failing = false;

  constructor(opts: EveWriterOptions) {
    if (!(opts.maxBytes > 0) || !(opts.queueBytes > 0) || !(opts.keep >= 0))
      throw new RangeError('EveWriter: maxBytes and queueBytes must be positive, keep at least 0');
    this.opts = opts;
  }

  /** The counters now. */
  stats(): EveWriterStats {
    return { ...this.counters, queuedBytes: this.queuedBytes };
  }

  /**
   * Queues one record (`line` without its newline). Returns false when it was dropped: the queue is full or the
   * writer is closed. Never waits.
   */
  write(line: string): boolean {
    const bytes = Buffer.byteLength(line) + 1;
    if (this.closed || this.queuedBytes + bytes > this.opts.queueBytes) {
      this.counters.dropped++;
      return false;
    }
    this.queue.push(line);
    this.sizes.push(bytes);
    this.seqIn++;
    this.queuedBytes += bytes;
    this.kick();
    return true;
  }

  /**
   * Closes the file and opens the path anew (after logrotate moved it away): lines accepted before this call still go to
   * the old file, later ones to the new. Resolves once reopened and those lines are written.
   */
  reopen(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.reopenAt = this.seqIn;
    this.kick();
    return this.flush();
  }

  /** Resolves when everything queued so far is on disk (or dropped). */
  async flush(): Promise<void> {
    while (this.loop) await this.loop;
  }

  /** Writes what is queued, then closes the file. Later writes are dropped. Idempotent. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.closeHandle();
  }

  private kick(): void {
    this.loop ??= this.run().finally(() => {
      this.loop = null;
      // Lines queued while the loop was finishing.
      if (!this.closed && (this.queueHead < this.queue.length || this.reopenAt !== null)) this.kick();
    });
  }

  private async run(): Promise<void> {
    while (this.reopenAt !== null || this.queueHead < this.queue.length) {
      if (this.reopenAt !== null && this.seqOut >= this.reopenAt) {
        this.reopenAt = null;
        await this.closeHandle();
        this.counters.reopens++;
        // The new file appears at once (a shipper watching the path sees it), even before the next record.
        if (!(await this.ensureOpen())) {
          this.dropQueued();
          break;
        }
      }
      if (this.queueHead >= this.queue.length) break;
      if (!(await this.ensureOpen())) {
        this.dropQueued();
        break;
      }
      // One chunk: whole lines up to CHUNK_BYTES that still fit the live file (at least one line, in a fresh file).
      let room = this.opts.maxBytes - this.size;
      if (room <= 0 || this.sizes[this.queueHead]! > room) {
        if (this.size > 0) {
          if (!(await this.rotate())) {
            this.dropQueued();
            break;
          }
          room = this.opts.maxBytes;
        }
      }
      const lines: string[] = [];
      let bytes = 0;
      const stopAt = this.reopenAt === null ? Infinity : this.queueHead + (this.reopenAt - this.seqOut);
      while (this.queueHead < this.queue.length && this.queueHead < stopAt) {
        const line = this.queue[this.queueHead]!;
        const n = this.sizes[this.queueHead]!;
        if (lines.length > 0 && (bytes + n > room || bytes + n > CHUNK_BYTES)) break;
        lines.push(line);
        bytes += n;
        this.queueHead++;
        this.seqOut++;
      }
      this.compactQueue();
      this.queuedBytes -= bytes;
      try {
        await this.handle!.write(lines.join('\n') + '\n');
        this.size += bytes;
        this.counters.written += lines.length;
        this.counters.bytes += bytes;
        this.failing = false;
      } catch (err) {
        this.counters.dropped += lines.length;
        this.fail('writing the EVE file failed', err);
        await this.closeHandle();
      }
    }
  }

  private async ensureOpen(): Promise<boolean> {
    if (this.handle) return true;
    try {
      this.handle = await open(this.opts.file, 'a', this.opts.mode ?? 0o640);
      this.size = (await this.handle.stat()).size;
      return true;
    } catch (err) {
      this.fail(`opening the EVE file ${this.opts.file} failed`, err);
      await this.closeHandle();
      return false;
    }
  }

  /** Moves the live file to `.1` (older ones up by one, the oldest deleted) and opens a new one. */
  private async rotate(): Promise<boolean> {
    await this.closeHandle();
    const { file, keep } = this.opts;
    try {
      if (keep === 0) await rm(file, { force: true });
      else {
        await rm(`${file}.${keep}`, { force: true });
        for (let i = keep - 1; i >= 1; i--) await renameIfExists(`${file}.${i}`, `${file}.${i + 1}`);
        await renameIfExists(file, `${file}.1`);
      }
      this.counters.rotations++;
    } catch (err) {
      this.fail('rotating the EVE file failed', err);
    }
    return this.ensureOpen();
  }

  private dropQueued(): void {
    this.counters.dropped += this.queue.length - this.queueHead;
    this.seqOut += this.queue.length - this.queueHead;
    this.queue = [];
    this.sizes = [];
    this.queueHead = 0;
    this.queuedBytes = 0;
  }

  private compactQueue(): void {
    if (this.queueHead === this.queue.length) {
      this.queue = [];
      this.sizes = [];
      this.queueHead = 0;
    } else if (this.queueHead > 4096 && this.queueHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.sizes = this.sizes.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  private async closeHandle(): Promise<void> {
    const h = this.handle;
    this.handle = null;
    this.size = 0;
    if (h) await h.close().catch((err: unknown) => this.fail('closing the EVE file failed', err));
  }

  private fail(message: string, err: unknown): void {
    this.counters.errors++;
    if (!this.failing) this.opts.log?.(message, err);
    this.failing = true;
  }
}

async function renameIfExists(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
