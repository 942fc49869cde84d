/**
 * TLS input for the parser tests (native/app/tls.h through the test-only `_parseTls`), written as hex: fixed-width
 * numbers, hex to bytes, and handshake bytes wrapped in records (RFC 8446 §5.1 TLSPlaintext: content type,
 * legacy_record_version, 2-byte length, fragment).
 */

/** `n` as 2, 4 or 6 hex digits (a 1-, 2- or 3-byte big-endian field). */
export const hex8 = (n: number): string => n.toString(16).padStart(2, '0');
export const hex16 = (n: number): string => n.toString(16).padStart(4, '0');
export const hex24 = (n: number): string => n.toString(16).padStart(6, '0');
/** The bytes of `hex` (white space ignored). */
export const bytes = (hex: string): Buffer => Buffer.from(hex.replace(/\s+/g, ''), 'hex');

/**
 * Wraps `msg` (hex) in records of at most `size` bytes each, of content type `type` (22: handshake) and record version
 * `version` (0x0303; a ClientHello's first record commonly carries 0x0301).
 */
export function records(msg: string, size = 16384, type = 22, version = 0x0303): string {
  let out = '';
  for (let i = 0; i < msg.length; i += size * 2) {
    const chunk = msg.slice(i, i + size * 2);
    out += hex8(type) + hex16(version) + hex16(chunk.length / 2) + chunk;
  }
  return out;
}
