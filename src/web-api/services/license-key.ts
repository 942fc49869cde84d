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
/** Symbol value by (upper-case) character code, -1 for characters that are not symbols. */
const DECODE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
DECODE['I'.charCodeAt(0)] = 1;
DECODE['L'.charCodeAt(0)] = 1;
DECODE['O'.charCodeAt(0)] = 0;
const SEPARATORS = /[\s-]+/g;
const KEY_SYMBOLS = RANDOM_SYMBOLS + CHECK_SYMBOLS;
/**
 * Longest input worth normalising: a canonical key is 35 characters; allow generous whitespace around and within.
 * `POST /api/license-key/validate` refuses longer keys with 400 (its schema uses this bound).
 */
export const MAX_KEY_INPUT_LENGTH = 256;

/** Bits of randomness in a key. */
export const LICENSE_KEY_RANDOM_BITS = RANDOM_SYMBOLS * 5;

/** Check value of the first `count` symbols. */
function checksum(values: readonly number[], count = values.length): number {
  let sum = 0;
  for (let i = 0; i < count; i++) sum = (sum + (i + 1) * values[i]) % MODULUS;
  return sum;
}

/** `VIGIL-` and the symbols in groups of five. */
function format(values: readonly number[]): string {
  let key = PREFIX;
  for (let i = 0; i < values.length; i++) key += i % 5 === 0 ? `-${ALPHABET[values[i]]}` : ALPHABET[values[i]];
  return key;
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
  if (input.length > MAX_KEY_INPUT_LENGTH) return null; // no key is that long, whatever its separators
  let compact = input.toUpperCase().replace(SEPARATORS, '');
  if (compact.startsWith(PREFIX)) compact = compact.slice(PREFIX.length);
  if (compact.length !== KEY_SYMBOLS) return null;
  const values = new Array<number>(KEY_SYMBOLS);
  for (let i = 0; i < KEY_SYMBOLS; i++) {
    const code = compact.charCodeAt(i);
    const v = code < 128 ? DECODE[code] : -1;
    if (v < 0) return null;
    values[i] = v;
  }
  const check = values[RANDOM_SYMBOLS] * 32 + values[RANDOM_SYMBOLS + 1];
  if (check !== checksum(values, RANDOM_SYMBOLS)) return null;
  return format(values);
}

/** Hex SHA-256 of a canonical key: what the database stores (115 random bits make a plain hash safe from guessing). */
export function hashLicenseKey(canonicalKey: string): string {
  return hash('sha256', canonicalKey, 'hex');
}
