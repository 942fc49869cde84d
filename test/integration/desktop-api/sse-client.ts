/** A minimal Server-Sent Events reader for tests (node:http, so headers such as Last-Event-ID can be set). */
import http from 'node:http';

export interface SseEvent {
  id: string;
  event: string;
  data: string;
}

export interface SseConnection {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  comments: string[];
  /** Resolves when `predicate` holds for the received events (rejects after `timeoutMs`). */
  waitFor(predicate: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export function openSse(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Accept: 'text/event-stream', ...headers }, localAddress }, (res) => {
      const events: SseEvent[] = [];
      const comments: string[] = [];
      const waiters: Array<() => void> = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let idx: number;
        while ((idx = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, idx);
          buffer = buffer.slice(idx + 2);
          const e: SseEvent = { id: '', event: 'message', data: '' };
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) e.id = line.slice(4);
            else if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              e.data = line.slice(6);
              isEvent = true;
            }
          }
          if (isEvent) events.push(e);
          for (const w of waiters.splice(0)) w();
        }
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        waitFor(predicate, timeoutMs = 5000) {
          return new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`SSE condition not met in ${timeoutMs} ms; got ${events.map((x) => x.event).join(',')}`)), timeoutMs);
            const check = (): void => {
              if (predicate(events)) {
                clearTimeout(timer);
                ok();
              } else waiters.push(check);
            };
            check();
          });
        },
        close() {
          req.destroy();
        },
      });
    });
    req.on('error', reject);
  });
}
