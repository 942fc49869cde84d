/** Translation of driver constraint errors (better-sqlite3 and pg) into the app's ConflictError. */
import { ConflictError } from '../../../errors.js';

/** True for a unique-constraint violation from better-sqlite3 (`SQLITE_CONSTRAINT_*`) or pg (SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Rethrows a unique violation as a 409 ConflictError with `code`, anything else unchanged. */
export function translateConflict(err: unknown, message: string, code: string): never {
  if (isUniqueViolation(err)) throw new ConflictError(message, code);
  throw err;
}
