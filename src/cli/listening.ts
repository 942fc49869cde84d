/**
 * Waiting for a long-running command's HTTP server to listen. An address another process holds (a second
 * `vigil start`, or any other program on that port) is the listen failure a new user meets first; it becomes a
 * {@link ConflictError} whose one-line message names the address and the variable that moves the port, which the CLI
 * prints instead of Node's raw EADDRINUSE stack trace.
 */
import type { Server } from 'node:net';
import { ConflictError } from '../errors.js';

/** `host:port`, with an IPv6 host in brackets. */
function formatAddress(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The error for a listen that failed because the address is taken; any other error is returned unchanged. */
export function listenError(err: unknown, portVariable: string): unknown {
  if (typeof err !== 'object' || err === null) return err;
  const { code, address, port } = err as { code?: unknown; address?: unknown; port?: unknown };
  if (code !== 'EADDRINUSE' || typeof address !== 'string' || typeof port !== 'number') return err;
  return new ConflictError(
    `${formatAddress(address, port)} is already in use (another Vigil? stop it, or set ${portVariable} to another port)`,
    'address_in_use',
    {
      address,
      port,
    },
  );
}

/**
 * Resolves once `server` (whose `listen` has been called) listens. Rejects with the listen error, translated by
 * {@link listenError}: `portVariable` is the setting that chooses the port (`VIGIL_DESKTOP_PORT`, `VIGIL_WEB_PORT`).
 */
export function whenListening(server: Server, portVariable: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (err) => reject(listenError(err, portVariable)));
  });
}
