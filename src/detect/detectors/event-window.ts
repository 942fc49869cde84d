/**
 * The events of one flood-detector key (packets sent and replies at a capture time, from a source) within a sliding
 * window of capture time. Parallel arrays of numbers instead of an object per event; running totals and the oldest
 * time, so a batch that adds events costs what it adds unless the window has to move.
 *
 * Same results as keeping the events in an array and, at each evaluation, filtering out those older than the newest
 * minus the window and summing the rest from the first: totals are summed in that order (recomputed after a removal),
 * so they are the same floating-point numbers.
 */
/**
 * Parallel arrays whose first holds times: removes, in place and keeping the order, the entries with a time below
 * `cutoff`, calling `dropped(i)` for each (index before the move) while its values are still in place.
 */
export function dropOlder(columns: readonly [number[], ...unknown[][]], cutoff: number, dropped: (i: number) => void): void {
  const t = columns[0];
  let kept = 0;
  for (let i = 0; i < t.length; i++) {
    if ((t[i] as number) < cutoff) {
      dropped(i);
      continue;
    }
    if (kept !== i) for (const col of columns) col[kept] = col[i];
    kept++;
  }
  for (const col of columns) col.length = kept;
}

export class EventWindow {
  // Arrays start as one-element literals on the first push (a first push() onto [] reserves 17 slots; most keys see
  // one or two events).
  /** Capture time (epoch ms) of each event, in arrival order. */
  private t: number[] = [];
  private sent: number[] = [];
  private replies: number[] = [];
  /** Source address key of each event. */
  private src: string[] = [];
  /**
   * Events `[0, reported)` have been reported. Reporting marks every event of the window and later ones are appended,
   * so the reported events are always a prefix.
   */
  private reported = 0;
  /** Newest time pushed: the newest event never leaves the window. */
  private newest = -Infinity;
  private oldest = Infinity;
  private sentTotal = 0;
  private repliesTotal = 0;

  get length(): number {
    return this.t.length;
  }

  /** Packets sent within the window (after {@link evict}). */
  get sentInWindow(): number {
    return this.sentTotal;
  }

  get repliesInWindow(): number {
    return this.repliesTotal;
  }

  push(t: number, sent: number, replies: number, src: string): void {
    if (this.t.length === 0) {
      this.t = [t];
      this.sent = [sent];
      this.replies = [replies];
      this.src = [src];
    } else {
      this.t.push(t);
      this.sent.push(sent);
      this.replies.push(replies);
      this.src.push(src);
    }
    if (t > this.newest) this.newest = t;
    if (t < this.oldest) this.oldest = t;
    this.sentTotal += sent;
    this.repliesTotal += replies;
  }

  /** Drops the events older than the newest one minus `windowMs`. */
  evict(windowMs: number): void {
    const cutoff = this.newest - windowMs;
    if (!(this.oldest < cutoff)) return;
    let reportedDropped = 0;
    dropOlder([this.t, this.sent, this.replies, this.src], cutoff, (i) => {
      if (i < this.reported) reportedDropped++;
    });
    this.reported -= reportedDropped;
    this.oldest = Infinity;
    this.sentTotal = 0;
    this.repliesTotal = 0;
    for (let i = 0; i < this.t.length; i++) {
      if ((this.t[i] as number) < this.oldest) this.oldest = this.t[i] as number;
      this.sentTotal += this.sent[i] as number;
      this.repliesTotal += this.replies[i] as number;
    }
  }

  /** Packets sent per source within the window, sources in order of their first event. */
  bySource(): Map<string, number> {
    const out = new Map<string, number>();
    for (let i = 0; i < this.t.length; i++) {
      const s = this.src[i] as string;
      out.set(s, (out.get(s) ?? 0) + (this.sent[i] as number));
    }
    return out;
  }

  /**
   * The events not reported yet: how many, their packets sent (summed in order) and their time span; marks them
   * reported. Null (and nothing marked) when there are none.
   */
  takeFresh(): { count: number; sent: number; first: number; last: number } | null {
    const n = this.t.length;
    if (this.reported >= n) return null;
    let sent = 0;
    let first = Infinity;
    let last = -Infinity;
    for (let i = this.reported; i < n; i++) {
      const ti = this.t[i] as number;
      sent += this.sent[i] as number;
      if (ti < first) first = ti;
      if (ti > last) last = ti;
    }
    const count = n - this.reported;
    this.reported = n;
    return { count, sent, first, last };
  }
}
