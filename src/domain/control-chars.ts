/**
 * The characters that must never reach a terminal as they are, defined once for the places that refuse them (block
 * reasons, `firewall/blocklist.ts`) and the places that print stored or captured text (`cli/terminal-text.ts`):
 * - C0 controls U+0000-U+001F, tab, line feed and carriage return included: ESC starts terminal control sequences
 *   (clear the screen, retitle the window, recolour), BEL rings, CR and LF forge lines, NUL truncates in C tools;
 * - DEL U+007F and the C1 controls U+0080-U+009F (U+009B is a one-character CSI for some terminals);
 * - the Unicode bidirectional embeddings and overrides U+202A-U+202E and isolates U+2066-U+2069, which reorder what a
 *   reader sees ("Trojan Source", CVE-2021-42574).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** A character of `text` from the unsafe set: its code point and 1-based position (in code points). */
export interface UnsafeChar {
  codePoint: number;
  position: number;
}

/** The first unsafe character of `text`, or null when there is none. */
export function findUnsafeChar(text: string): UnsafeChar | null {
  if (!UNSAFE.test(text)) return null;
  let position = 0;
  for (const ch of text) {
    position++;
    if (UNSAFE.test(ch)) return { codePoint: ch.codePointAt(0)!, position };
  }
  return null;
}

/** `U+001B` for 0x1b: how error messages name a code point. */
export function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Replaces every unsafe character of `text` with `replace(char)`. */
export function replaceUnsafeChars(text: string, replace: (char: string) => string): string {
  return text.replace(UNSAFE_ALL, replace);
}
