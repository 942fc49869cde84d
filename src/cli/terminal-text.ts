/**
 * Text the CLI prints that it did not write itself (stored block reasons and audit rows, interface descriptions,
 * file names, error messages): control characters, DEL, C1 and bidirectional overrides (`domain/control-chars.ts`)
 * are shown as visible escapes, never sent to the terminal. Rows stored before reasons were validated, or written by
 * another process, print safely too.
 */
import { replaceUnsafeChars } from '../domain/control-chars.js';

/** `\x1b` for characters up to U+00FF (C0, DEL, C1), `\u202e` for the bidirectional controls. */
function visible(char: string): string {
  const cp = char.codePointAt(0)!;
  return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** `text` with every unsafe character replaced by a visible escape (`ESC` -> `\x1b`); one line, whatever it held. */
export function terminalText(text: string): string {
  return replaceUnsafeChars(text, visible);
}

/** Like {@link terminalText} line by line: keeps the line feeds of a multi-line message (a log line with a stack). */
export function terminalLines(text: string): string {
  return text.split('\n').map(terminalText).join('\n');
}

/**
 * `JSON.stringify(value)` safe for a terminal: JSON already escapes C0 controls; DEL, C1 and the bidirectional
 * controls become `\uXXXX` escapes too, which parse back to the same value (outside strings JSON holds only ASCII).
 */
export function terminalJson(value: unknown): string {
  return replaceUnsafeChars(JSON.stringify(value), (char) => `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}
