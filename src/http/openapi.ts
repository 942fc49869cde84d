/**
 * OpenAPI glue shared by both HTTP servers: zod schemas -> JSON Schema components (draft 2020-12, the dialect of
 * OpenAPI 3.1), and the problem body every error response carries, as a zod schema.
 */
import { z, type ZodType } from 'zod';

/**
 * `schemas` as OpenAPI components keyed by name: references between them become `#/components/schemas/<name>`.
 * `io: 'input'` describes what a request may send (defaults optional), `'output'` what a response holds.
 */
export function jsonSchemaComponents(schemas: Record<string, ZodType>, io: 'input' | 'output'): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const out = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any', io, target: 'draft-2020-12' });
  const result: Record<string, unknown> = {};
  for (const [id, s] of Object.entries(out.schemas)) {
    const { $schema: _s, $id: _i, ...rest } = s as Record<string, unknown>;
    result[id] = rest;
  }
  return result;
}

/** The RFC 9457 body `problem.ts` sends (extension members such as `errors`, `limit` or `retryAfter` may follow). */
export const problemBodySchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  instance: z.string(),
  code: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
