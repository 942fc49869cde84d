/**
 * Blocks of numbers for a detector's small per-key windows (probe-window.ts, event-window.ts): most keys see one or two
 * events, and an array per key, re-allocated as it grew, was most of what the detectors allocated. A block has room
 * for `head` numbers and `2 ** c` records of `stride` numbers (size class `c`, 0 to 5: 1 to 32 records); blocks are
 * cut from chunks of 32 KB and handed back to a free list per class when a window grows out of one or its key is
 * forgotten. A window that outgrows the largest class takes a typed array of its own.
 *
 * Against a typed array per window: a Float64Array past 64 bytes is a backing store outside the heap (`calloc`, an
 * ArrayBuffer extension and a sweep on a V8 helper thread each; 0.3-0.5 µs apiece); a plain array per window is a
 * heap object a scavenge copies. Memory stays bounded by the detector's keys: at most one block per key is in use,
 * and a freed block serves the next window of its class.
 */

/** Size classes: room for 1, 2, 4 ... 32 records. */
export const BLOCK_CLASSES = 6;
/** Numbers per chunk: a block never spans two. */
const CHUNK = 4096;

export class BlockStore {
  private chunk: Float64Array = new Float64Array(0);
  private top = 0;
  private readonly freeChunks: Float64Array[][] = [];
  private readonly freeOffsets: number[][] = [];
  /** The chunk of the block {@link alloc} returned last (before the first, an empty array). */
  allocated: Float64Array = this.chunk;

  constructor(
    /** Numbers at the head of every block. */
    readonly head: number,
    /** Numbers per record. */
    readonly stride: number,
  ) {
    for (let c = 0; c < BLOCK_CLASSES; c++) {
      this.freeChunks.push([]);
      this.freeOffsets.push([]);
    }
  }

  /** Numbers in a block of class `c`. */
  size(c: number): number {
    return this.head + (this.stride << c);
  }

  /** A block of class `c`: returns its offset in its chunk, which is then {@link allocated}. Its numbers are stale. */
  alloc(c: number): number {
    const offsets = this.freeOffsets[c] as number[];
    if (offsets.length > 0) {
      this.allocated = (this.freeChunks[c] as Float64Array[]).pop() as Float64Array;
      return offsets.pop() as number;
    }
    const size = this.size(c);
    if (this.top + size > this.chunk.length) {
      this.chunk = new Float64Array(CHUNK);
      this.top = 0;
    }
    const off = this.top;
    this.top += size;
    this.allocated = this.chunk;
    return off;
  }

  /** Where in {@link allocated} the window {@link grow} moved last now starts. */
  grownAt = 0;

  /**
   * Room for twice the records of a full window of class `cls` (-1: an array of its own) whose `used` numbers start at
   * `start` in `from`: the block of the next class, or past the largest one an array of the window's own (its numbers
   * live outside the JS heap, so the collector neither copies nor scans them). Copies the numbers there and returns
   * the new class (-1 for an array of its own); the array is then {@link allocated} and the offset {@link grownAt}. The
   * old block stays the caller's to {@link free}.
   */
  grow(from: Float64Array, start: number, used: number, cls: number): number {
    const next = cls >= 0 && cls + 1 < BLOCK_CLASSES ? cls + 1 : -1;
    let off = 0;
    if (next >= 0) off = this.alloc(next);
    else this.allocated = new Float64Array(this.head + 2 * (used - this.head));
    const to = this.allocated;
    for (let k = 0; k < used; k++) to[off + k] = from[start + k] as number;
    this.grownAt = off;
    return next;
  }

  /** Hands back the block of class `c` at `off` in `chunk`. */
  free(c: number, chunk: Float64Array, off: number): void {
    (this.freeChunks[c] as Float64Array[]).push(chunk);
    (this.freeOffsets[c] as number[]).push(off);
  }
}
