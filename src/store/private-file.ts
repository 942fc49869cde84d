/**
 * File modes of the stores' private files, shared by the desktop store and the Web API's SQLite store: both hold data
 * about people (addresses and alerts; e-mails, subjects and key hashes), so their directories are 0700 and their
 * database files 0600.
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Narrows `file` (or directory) to `mode` when group or others have any access and it belongs to this user. Returns
 * the permission bits it had when they were narrowed, null when nothing needed changing, undefined when it does not
 * exist.
 */
export function makePrivate(file: string, mode: number): number | null | undefined {
  const st = statSync(file, { throwIfNoEntry: false });
  if (st === undefined) return undefined;
  if ((st.mode & 0o077) === 0 || st.uid !== process.getuid?.()) return null;
  chmodSync(file, mode);
  return st.mode & 0o777;
}

/**
 * Prepares an SQLite database file before SQLite opens it: a missing directory is created with mode 0700 and the
 * database file with 0600 (SQLite gives the -wal and -shm files the database file's mode); files of an older install
 * with wider modes are narrowed to 0600. `readonly` opens create nothing.
 */
export function preparePrivateDatabaseFile(file: string, readonly = false): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
  if (makePrivate(file, 0o600) === undefined && !readonly) closeSync(openSync(file, 'a', 0o600));
  for (const suffix of ['-wal', '-shm']) makePrivate(`${file}${suffix}`, 0o600);
}
