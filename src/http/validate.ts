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

/**
 * A parser of `ctx.query` with `schema`, memoised by the raw query string: polling clients send the same few query
 * strings, and the same string always yields the same value, so koa's query parsing and zod run once per distinct
 * string (at most `entries` kept, oldest dropped first). Values are frozen and shared between requests; failures
 * are not cached and throw like {@link parseInput}.
 */
export function queryParser<T>(schema: ZodType<T>, entries = 64): (ctx: { querystring: string; query: unknown }) => T {
  const cache = new Map<string, T>();
  return (ctx) => {
    const raw = ctx.querystring;
    const hit = cache.get(raw);
    if (hit !== undefined) return hit;
    const value = parseInput(schema, ctx.query, 'query');
    if (typeof value === 'object' && value !== null) Object.freeze(value);
    if (cache.size >= entries) cache.delete(cache.keys().next().value as string);
    cache.set(raw, value);
    return value;
  };
}
