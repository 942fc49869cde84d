/**
 * The one event stream (`GET /api/events`) read through fetch, since EventSource cannot send the page key: the SSE
 * wire format is parsed here (`id:`, `event:`, `data:`, blank line), the last id is kept, and after a drop the stream
 * reconnects with `Last-Event-ID` after the server's `retry:` delay (or after the rate limit's pause).
 */
import { authHeaders, countRequest, limited, toApiError } from './api.js';

export interface StreamHandlers {
  onEvent(name: string, data: unknown): void;
  /** Connected (true) or lost (false). */
  onState(connected: boolean, detail: string): void;
}

/** Opens the stream and keeps it open; returns a function that closes it for good. */
export function openEventStream(handlers: StreamHandlers): () => void {
  let lastId = '';
  let retryMs = 3000;
  let closed = false;
  let controller: AbortController | null = null;
  let timer = 0;

  const schedule = (ms: number): void => {
    if (!closed) timer = window.setTimeout(connect, ms);
  };

  async function connect(): Promise<void> {
    if (closed) return;
    if (limited()) return schedule(5000);
    controller = new AbortController();
    const headers = authHeaders();
    if (lastId !== '') headers['Last-Event-ID'] = lastId;
    countRequest();
    try {
      const res = await fetch('/api/events', { headers, signal: controller.signal, cache: 'no-store' });
      if (!res.ok || res.body === null) {
        const err = await toApiError(res);
        handlers.onState(false, err.detail);
        return schedule(res.status === 429 ? 5000 : Math.max(retryMs, 10_000));
      }
      handlers.onState(true, '');
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          dispatch(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
      handlers.onState(false, 'The event stream ended; reconnecting.');
    } catch (err) {
      if (closed) return;
      handlers.onState(false, `The event stream was interrupted (${err instanceof Error ? err.message : String(err)}); reconnecting.`);
    }
    schedule(retryMs);
  }

  function dispatch(block: string): void {
    let name = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') name = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') lastId = value;
      else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value);
    }
    if (data.length === 0) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.join('\n'));
    } catch {
      return;
    }
    handlers.onEvent(name, parsed);
  }

  void connect();
  return () => {
    closed = true;
    window.clearTimeout(timer);
    controller?.abort();
  };
}
