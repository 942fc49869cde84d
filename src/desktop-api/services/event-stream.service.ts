/**
 * The Server-Sent Events hub behind `GET /api/events`: every bus event gets an id (`<boot>-<seq>`), the last
 * `bufferSize` events are kept so a client reconnecting with `Last-Event-ID` receives exactly what it missed.
 */
import type { EventBus, VigilEventName } from '../../events.js';

/** One event as sent on the stream. */
export interface StreamEvent {
  id: string;
  seq: number;
  event: VigilEventName;
  data: string;
}

const NAMES: VigilEventName[] = ['alert', 'stats', 'monitoring', 'firewall'];

export class EventStreamService {
  /** Distinguishes this process's ids from a previous run's. */
  private readonly boot: string;
  private seq = 0;
  private readonly buffer: StreamEvent[] = [];
  private readonly clients = new Map<(e: StreamEvent) => void, () => void>();
  private readonly unsubscribe: Array<() => void>;

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

  private push(event: VigilEventName, payload: unknown): void {
    const seq = ++this.seq;
    const e: StreamEvent = { id: `${this.boot}-${seq}`, seq, event, data: JSON.stringify(payload) };
    this.buffer.push(e);
    if (this.buffer.length > this.bufferSize) this.buffer.shift();
    for (const c of this.clients.keys()) c(e);
  }

  /**
   * Events after `lastEventId` still in the buffer: all of them when the id is from another run or unknown,
   * none when there is no id.
   */
  missedSince(lastEventId: string | undefined): StreamEvent[] {
    if (lastEventId === undefined || lastEventId === '') return [];
    const m = /^([a-z0-9]+)-(\d+)$/.exec(lastEventId);
    if (!m || m[1] !== this.boot) return [...this.buffer];
    const after = Number(m[2]);
    return this.buffer.filter((e) => e.seq > after);
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
