/**
 * The Host header check against DNS rebinding: a web page whose own name is made to resolve to 127.0.0.1 reaches the
 * API as a same-origin page, so its requests carry no Origin that access control could refuse, but they do carry the
 * page's name in Host. Only names that cannot be rebound by someone else are served: loopback names, IP literals (LAN
 * access by address, as `vigil pair` prints it), this machine's host name (and `<name>.local`), the configured listen
 * name, and the names of VIGIL_DESKTOP_ALLOWED_HOSTS. Anything else gets 403 `host_not_allowed`.
 */
import type { Context, Middleware, Next } from 'koa';
import { isIP } from 'node:net';
import os from 'node:os';
import { ForbiddenError } from '../../errors.js';

/** Options of {@link hostCheck}. */
export interface HostCheckOptions {
  /** Extra accepted names (lower case); `*` turns the check off. */
  allowedHosts: readonly string[];
  /** The listen address (`VIGIL_DESKTOP_HOST`): a name configured there is accepted too. */
  listenHost: string;
  /** This machine's host name. Default `os.hostname()`. */
  hostname?: string;
}

/** The name part of a Host header value (no port, no brackets, lower case, no trailing dot); null when malformed. */
export function hostName(header: string): string | null {
  if (header.startsWith('[')) {
    const end = header.indexOf(']');
    const rest = header.slice(end + 1);
    return end > 1 && (rest === '' || /^:\d*$/.test(rest)) ? header.slice(1, end).toLowerCase() : null;
  }
  const colon = header.indexOf(':');
  if (colon >= 0 && !/^\d*$/.test(header.slice(colon + 1))) return null;
  const name = (colon >= 0 ? header.slice(0, colon) : header).toLowerCase();
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** The names {@link hostCheck} accepts besides IP literals. */
export function acceptedHostNames(options: HostCheckOptions): Set<string> {
  const names = new Set(['localhost', ...options.allowedHosts]);
  const machine = (options.hostname ?? os.hostname()).toLowerCase();
  if (machine !== '') {
    const short = machine.split('.')[0];
    for (const n of [machine, short, `${short}.local`]) names.add(n);
  }
  if (isIP(options.listenHost) === 0) names.add(options.listenHost.toLowerCase());
  return names;
}

/**
 * Refuses requests whose Host header names anything but an accepted name or an IP literal (see the module comment).
 * A request without a Host header (HTTP/1.0) is not a browser's and passes. Not async: nothing to await.
 */
export function hostCheck(options: HostCheckOptions): Middleware {
  const names = acceptedHostNames(options);
  if (names.has('*')) return (_ctx: Context, next: Next) => next();
  let lastAccepted = '';
  return (ctx: Context, next: Next) => {
    const header = ctx.req.headers.host;
    if (header === undefined || header === lastAccepted) return next();
    const name = hostName(header);
    if (name !== null && (names.has(name) || isIP(name) !== 0)) {
      lastAccepted = header;
      return next();
    }
    const shown = header.length > 100 ? `${header.slice(0, 100)}...` : header;
    throw new ForbiddenError(
      `Host "${shown}" is not served here: use localhost, an IP address or this machine's name, or add the name to VIGIL_DESKTOP_ALLOWED_HOSTS.`,
      'host_not_allowed',
    );
  };
}
