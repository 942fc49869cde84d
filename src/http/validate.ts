/**
 * Request validation with zod: one schema per input, parsed into typed values, and failures turned into a
 * `ValidationError` that names each offending field.
 */
import type { ZodType } from 'zod';
import { ValidationError, type FieldIssue } from '../errors.js';

/** Parses `input` with `schema`; throws a 400 `ValidationError` naming every bad field (prefixed with `where`). */
export function parseInput<T>(schema: ZodType<T>, input: unknown, where: 'query' | 'body' | 'params' = 'body'): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors: FieldIssue[] = result.error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.join('.') : where,
    message: issue.message,
  }));
  const fields = [...new Set(errors.map((e) => e.path))].join(', ');
  throw new ValidationError(`Invalid ${where}: ${fields}: ${errors.map((e) => e.message).join('; ')}`, errors);
}
