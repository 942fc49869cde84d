/**
 * License key codec: `VIGIL-XXXXX-XXXXX-XXXXX-XXXXX-XXXXX`, 25 Crockford base32 symbols = 23 random symbols (115 bits)
 * plus 2 check symbols. The check is a position-weighted sum modulo the prime 1021, so every single-symbol typo and
 * every swap of two adjacent symbols in the random part is detected (MALFORMED) without a database lookup.
 * Input is read the Crockford way: case-insensitive, I/L read as 1, O as 0, hyphens and spaces ignored.
 */
import { hash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const PREFIX = 'VIGIL';
const RANDOM_SYMBOLS = 23;
const CHECK_SYMBOLS = 2;
const MODULUS = 1021;
const DECODE = new Map<string, number>();
for (let i = 0; i < ALPHABET.length; i++) DECODE.set(ALPHABET[i], i);
DECODE.set('I', 1);
DECODE.set('L', 1);
DECODE.set('O', 0);

/** Bits of randomness in a key. */
export const LICENSE_KEY_RANDOM_BITS = RANDOM_SYMBOLS * 5;

function checksum(values: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum = (sum + (i + 1) * values[i]) % MODULUS;
  return sum;
}

function format(values: readonly number[]): string {
  const body = values.map((v) => ALPHABET[v]).join('');
  const groups = body.match(/.{5}/g) ?? [];
  return [PREFIX, ...groups].join('-');
}

/** A new random key in canonical form. Shown to its owner once; only {@link hashLicenseKey} of it is stored. */
export function generateLicenseKey(): string {
  const bytes = randomBytes(RANDOM_SYMBOLS);
  const values = Array.from(bytes, (b) => b & 31); // 256 is a multiple of 32: uniform symbols
  const check = checksum(values);
  values.push(Math.floor(check / 32), check % 32);
  return format(values);
}

/** The canonical form of `input` (`VIGIL-` + 5 groups, upper case), or null when it is malformed or its check fails. */
export function normalizeLicenseKey(input: string): string | null {
  let compact = input.toUpperCase().replace(/[\s-]+/g, '');
  if (compact.startsWith(PREFIX)) compact = compact.slice(PREFIX.length);
  if (compact.length !== RANDOM_SYMBOLS + CHECK_SYMBOLS) return null;
  const values: number[] = [];
  for (const ch of compact) {
    const v = DECODE.get(ch);
    if (v === undefined) return null;
    values.push(v);
  }
  const random = values.slice(0, RANDOM_SYMBOLS);
  const check = values[RANDOM_SYMBOLS] * 32 + values[RANDOM_SYMBOLS + 1];
  if (check !== checksum(random)) return null;
  return format(values);
}

/** Hex SHA-256 of a canonical key: what the database stores (115 random bits make a plain hash safe from guessing). */
export function hashLicenseKey(canonicalKey: string): string {
  return hash('sha256', canonicalKey, 'hex');
}
