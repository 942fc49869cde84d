/**
 * The pairing token: 32 random bytes (base64url) created on first start in the data directory with mode 0600, and a
 * constant-time comparison. `vigil pair` shows it; non-loopback clients send it as `Authorization: Bearer <token>`.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Reads the token from `file`, creating it (and its directory, mode 0700) when missing; tightens a loose mode. */
export function loadOrCreatePairingToken(file: string): string {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length >= 32) {
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
      return token;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

/**
 * Compares a presented token with the expected one in constant time (both are hashed first, so neither the length
 * nor the content of the expected token leaks through timing).
 */
export function tokenMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && presented.length === expected.length;
}

/**
 * The dashboard page's key: HMAC-SHA256 of a fixed label under the pairing token (base64url). The page carries it in
 * its HTML and sends it as `Authorization: Bearer <key>`; it is accepted from loopback only, it is not the pairing
 * token (the page's key cannot pair a phone) and it changes when the token does. See docs/dashboard.md.
 */
export function pageKeyFor(pairingToken: string): string {
  return createHmac('sha256', pairingToken).update('vigil dashboard page key v1').digest('base64url');
}

/** What the pairing view shows: the URL a phone should use, the token, and the QR payload. */
export interface PairingLink {
  url: string;
  token: string;
  /** `vigil://pair?url=...&token=...` (the QR payload `vigil pair` prints too). */
  link: string;
}

/** Builds the pairing link for `url` and `token`. */
export function pairingLink(url: string, token: string): PairingLink {
  return { url, token, link: `vigil://pair?url=${encodeURIComponent(url)}&token=${encodeURIComponent(token)}` };
}
