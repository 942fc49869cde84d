/**
 * The page's one way to the API: same-origin fetch with the page key (`Authorization: Bearer`, read from the HTML's
 * meta tag), JSON in and out, and the rate limit handled in one place. The desktop API allows 100 requests per 15
 * minutes per address, so every request the page makes goes through here and is counted; a 429 pauses every request
 * until the window's end (`Retry-After`), shows a banner, and the page refreshes itself when the pause is over.
 */

/** A problem+json answer (RFC 9457) or a network failure, as the page shows it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** Listeners the shell registers: the banner and the resume-after-limit refresh. */
export interface ApiHooks {
  /** A 429: requests are paused until `untilMs` (epoch ms). */
  onLimited(untilMs: number): void;
  /** The pause is over. */
  onResumed(): void;
  /** The page key was refused (the server's pairing token changed): the page must be reloaded. */
  onKeyRefused(detail: string): void;
}

let hooks: ApiHooks | null = null;
let pausedUntilMs = 0;
let resumeTimer = 0;
/** Requests made by this page since it loaded (the event stream included). */
export let requestCount = 0;

/** The key the server put into the page. */
export function pageKey(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="vigil-page-key"]')?.content ?? '';
}

export function setApiHooks(h: ApiHooks): void {
  hooks = h;
}

/** True while a 429 pause lasts. */
export function limited(): boolean {
  return Date.now() < pausedUntilMs;
}

/** Starts (or extends) the pause after a 429. */
export function pause(retryAfterSec: number): void {
  const until = Date.now() + Math.max(1, retryAfterSec) * 1000;
  if (until <= pausedUntilMs) return;
  pausedUntilMs = until;
  hooks?.onLimited(until);
  window.clearTimeout(resumeTimer);
  resumeTimer = window.setTimeout(() => {
    pausedUntilMs = 0;
    hooks?.onResumed();
  }, until - Date.now());
}

/** Headers of every request. */
export function authHeaders(): Record<string, string> {
  return { Authorization: `Bearer ${pageKey()}` };
}

/** Counts one request (the event stream calls this too). */
export function countRequest(): void {
  requestCount++;
}

/**
 * Seconds until the limiter's window ends: from `X-RateLimit-Reset` (whole epoch seconds, rounded up by the server),
 * else `Retry-After` (whole seconds, rounded down, so one more), else a minute.
 */
function retryAfterSec(headers: Headers): number {
  const reset = Number(headers.get('X-RateLimit-Reset'));
  if (Number.isFinite(reset) && reset > 0) return Math.max(1, Math.ceil(reset - Date.now() / 1000));
  const after = headers.get('Retry-After');
  if (after !== null && /^\d+$/.test(after)) return Number(after) + 1;
  return 60;
}

/** The limit the server announced (`X-RateLimit-Limit`), for the banner; null before any answer. */
export let announcedLimit: number | null = null;

/** Reads a problem body (or plain text) into an ApiError. */
export async function toApiError(res: Response): Promise<ApiError> {
  const text = await res.text();
  let code = `http_${res.status}`;
  let detail = text.trim() || res.statusText;
  try {
    const body = JSON.parse(text) as { code?: unknown; detail?: unknown; title?: unknown };
    if (typeof body.code === 'string') code = body.code;
    if (typeof body.detail === 'string') detail = body.detail;
    else if (typeof body.title === 'string') detail = body.title;
  } catch {
    // not JSON: the text is the detail (the rate limiter answers plain text)
  }
  if (res.status === 429) {
    pause(retryAfterSec(res.headers));
    code = 'rate_limited';
  }
  if (res.status === 401) hooks?.onKeyRefused(detail);
  return new ApiError(res.status, code, detail);
}

/** One request: resolves with the parsed JSON body, rejects with an ApiError (no request is made while paused). */
export async function api<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  if (limited()) throw new ApiError(429, 'rate_limited', 'Too many requests: paused until the rate limit window ends.');
  const headers: Record<string, string> = authHeaders();
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  countRequest();
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  } catch (err) {
    throw new ApiError(0, 'network', `Vigil is not reachable (${err instanceof Error ? err.message : String(err)}).`);
  }
  const limit = Number(res.headers.get('X-RateLimit-Limit'));
  if (Number.isInteger(limit) && limit > 0) announcedLimit = limit;
  if (!res.ok) throw await toApiError(res);
  return (await res.json()) as T;
}
