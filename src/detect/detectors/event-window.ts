/**
 * The events of one flood-detector key (packets sent and replies at a capture time, from a source) within a sliding
 * window of capture time. Parallel arrays of numbers instead of an object per event; running totals and the oldest
 * time, so a batch that adds events costs what it adds unless the window has to move.
 *
 * Same results as keeping the events in an array and, at each evaluation, filtering out those older than the newest
 * minus the window and summing the rest from the first: totals are summed in that order (recomputed after a removal),
 * so they are the same floating-point numbers.
 */
export class EventWindow {
  /** Capture time (epoch ms) of each event, in arrival order. */
  readonly t: number[] = [];
  readonly sent: number[] = [];
  readonly replies: number[] = [];
  /** Source address key of each event. */
  readonly src: string[] = [];
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
    this.t.push(t);
    this.sent.push(sent);
    this.replies.push(replies);
    this.src.push(src);
    if (t > this.newest) this.newest = t;
    if (t < this.oldest) this.oldest = t;
    this.sentTotal += sent;
    this.repliesTotal += replies;
  }

  /** Drops the events older than the newest one minus `windowMs`. */
  evict(windowMs: number): void {
    const cutoff = this.newest - windowMs;
    if (!(this.oldest < cutoff)) return;
    const { t, sent, replies, src } = this;
    let kept = 0;
    let reported = 0;
    let oldest = Infinity;
    let sentTotal = 0;
    let repliesTotal = 0;
    for (let i = 0; i < t.length; i++) {
      const ti = t[i] as number;
      if (ti < cutoff) continue;
      if (i < this.reported) reported++;
      t[kept] = ti;
      sent[kept] = sent[i] as number;
      replies[kept] = replies[i] as number;
      src[kept] = src[i] as string;
      if (ti < oldest) oldest = ti;
      sentTotal += sent[kept] as number;
      repliesTotal += replies[kept] as number;
      kept++;
    }
    t.length = kept;
    sent.length = kept;
    replies.length = kept;
    src.length = kept;
    this.reported = reported;
    this.oldest = oldest;
    this.sentTotal = sentTotal;
    this.repliesTotal = repliesTotal;
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
