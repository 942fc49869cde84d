/**
 * The Server-Sent Events hub behind `GET /api/events`: every bus event gets an id (`<boot>-<seq>`), the last
 * `bufferSize` events are kept so a client reconnecting with `Last-Event-ID` receives exactly what it missed. When
 * that is no longer possible (the id is older than the buffer, or from another run of the server, or not an id at
 * all), the client gets a `reset` event instead: refetch the state, then carry on with the live events.
 */
import type { EventBus, VigilEventName } from '../../events.js';

/** One event as sent on the stream. */
export interface StreamEvent {
  id: string;
  seq: number;
  event: VigilEventName | 'reset';
  data: string;
}

/** The data of a `reset` event. */
export interface ResetData {
  /** `gap`: events after the client's id have left the buffer; `unknown_id`: the id is from another run or malformed. */
  reason: 'gap' | 'unknown_id';
  /** The Last-Event-ID the client sent. */
  lastEventId: string;
  /** The oldest event the server still holds (null: none yet). */
  oldestEventId: string | null;
}

/** What a client reconnecting with a Last-Event-ID receives before the live events. */
export interface Resume {
  /** Set when the missed events cannot be replayed: the client should refetch what it shows. */
  reset: StreamEvent | null;
  /** The missed events, in order (none after a reset). */
  events: StreamEvent[];
}

const NAMES: VigilEventName[] = ['alert', 'stats', 'monitoring', 'firewall'];

export class EventStreamService {
  /** Distinguishes this process's ids from a previous run's. */
  private readonly boot: string;
  private seq = 0;
  private readonly buffer: StreamEvent[] = [];
  private readonly clients = new Map<(e: StreamEvent) => void, () => void>();
  private readonly unsubscribe: Array<() => void>;
  private dropped = 0;

  constructor(
    events: EventBus,
    private readonly bufferSize = 1000,
    bootId = Date.now().toString(36),
  ) {
    this.boot = bootId;
    this.unsubscribe = NAMES.map((name) => events.on(name, (payload) => this.push(name, payload)));
  }

  /** Number of connected clients. */
  get clientCount(): number {
    return this.clients.size;
  }

  /** Clients dropped since start because they stopped reading (more than the pending bound waited unsent). */
  get slowClientsDropped(): number {
    return this.dropped;
  }

  /** Counts one client dropped for not reading (called by the stream writer that dropped it). */
  countSlowClientDropped(): void {
    this.dropped += 1;
  }

  private push(event: VigilEventName, payload: unknown): void {
    const seq = ++this.seq;
    const e: StreamEvent = { id: `${this.boot}-${seq}`, seq, event, data: JSON.stringify(payload) };
    this.buffer.push(e);
    if (this.buffer.length > this.bufferSize) this.buffer.shift();
    for (const c of this.clients.keys()) c(e);
  }

  /**
   * What a client resuming after `lastEventId` gets: nothing without an id; the buffered events after it when none
   * was lost; otherwise a `reset` (the id is older than the buffer, from another run, or malformed), and no buffered
   * events, since the client refetches the state they led to. The reset carries the id of the newest event, so a
   * later reconnect resumes from there; it takes no sequence number of its own.
   */
  resume(lastEventId: string | undefined): Resume {
    if (lastEventId === undefined || lastEventId === '') return { reset: null, events: [] };
    const m = /^([a-z0-9]+)-(\d+)$/.exec(lastEventId);
    const after = m !== null && m[1] === this.boot ? Number(m[2]) : null;
    const known = after !== null && after <= this.seq;
    if (known) {
      const oldest = this.buffer.length > 0 ? this.buffer[0].seq : this.seq + 1;
      if (after >= oldest - 1) return { reset: null, events: this.buffer.filter((e) => e.seq > after) };
    }
    const data: ResetData = { reason: known ? 'gap' : 'unknown_id', lastEventId: lastEventId.slice(0, 100), oldestEventId: this.buffer[0]?.id ?? null };
    return { reset: { id: `${this.boot}-${this.seq}`, seq: this.seq, event: 'reset', data: JSON.stringify(data) }, events: [] };
  }

  /** Registers a client (`end` is called when the hub closes); returns its unsubscribe function. */
  subscribe(send: (e: StreamEvent) => void, end: () => void = () => undefined): () => void {
    this.clients.set(send, end);
    return () => {
      this.clients.delete(send);
    };
  }

  /** Detaches from the bus and ends every client's stream. */
  close(): void {
    for (const u of this.unsubscribe) u();
    const ends = [...this.clients.values()];
    this.clients.clear();
    for (const end of ends) end();
  }
}

/** Formats one event in the SSE wire format. */
export function formatEvent(e: StreamEvent): string {
  return `id: ${e.id}\nevent: ${e.event}\ndata: ${e.data}\n\n`;
}
