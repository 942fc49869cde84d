/**
 * The Web API's responses against its OpenAPI document: {@link TestContext} passes every response it receives here, so
 * each integration test also checks that the answer is documented (operation, status, media type) and that its JSON
 * body matches the documented component exactly (the zod schema the component was generated from, with no
 * undocumented members). Answers to paths or methods the document does not list must be problems (404, 405, 501),
 * except OPTIONS (CORS preflights).
 */
import { expect } from 'chai';
import type { ZodType } from 'zod';
import { buildWebOpenApiDocument, RESPONSE_COMPONENTS } from '../../../src/web-api/openapi.js';

interface Media {
  schema: { $ref?: string };
}
interface Operation {
  responses: Record<string, { content?: Record<string, Media> }>;
}

const DOC = buildWebOpenApiDocument('contract') as unknown as { paths: Record<string, Record<string, Operation>> };
const PATHS = Object.entries(DOC.paths).map(([template, ops]) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  ops,
}));

/** `METHOD /template status` of every documented answer received so far in this process. */
export const answered = new Set<string>();

/** A received response as the test context holds it. */
export interface ReceivedResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

function mediaMatches(range: string, type: string): boolean {
  if (range === '*/*' || range === type) return true;
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1));
}

function expectMatches(component: string, body: unknown, where: string): void {
  const schema = RESPONSE_COMPONENTS[component as keyof typeof RESPONSE_COMPONENTS] as ZodType | undefined;
  if (schema === undefined) expect.fail(`${where}: the document names an unknown component ${component}`);
  const r = schema.safeParse(body);
  if (!r.success) expect.fail(`${where}: the body does not match ${component}: ${r.error.message}\n${JSON.stringify(body).slice(0, 500)}`);
  // zod drops members its schema does not name; any dropped member is one the document does not describe.
  expect(JSON.parse(JSON.stringify(r.data)), `${where}: members not in ${component}`).to.deep.equal(body);
}

/** Fails the test when `response` to `method urlPath` is not what the OpenAPI document says. */
export function expectDocumented(method: string, urlPath: string, response: ReceivedResponse): void {
  const path = urlPath.split('?')[0];
  const verb = method.toLowerCase();
  const where = `${method} ${path} -> ${response.status}`;
  const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const matched = PATHS.find((p) => p.pattern.test(path));
  const op = matched?.ops[verb];
  if (matched === undefined || op === undefined) {
    if (verb === 'options' && response.status < 300) return; // a CORS preflight, or the router's Allow answer
    expect(response.status, `${where}: answered an undocumented route`).to.be.at.least(400);
    expect(type, where).to.equal('application/problem+json');
    expectMatches('Problem', response.body, where);
    return;
  }
  const documented = op.responses[String(response.status)];
  if (documented === undefined) expect.fail(`${where}: status ${response.status} is not documented for ${verb.toUpperCase()} ${matched.template}`);
  answered.add(`${verb.toUpperCase()} ${matched.template} ${response.status}`);
  const content = documented.content ?? {};
  const range = Object.keys(content).find((r) => mediaMatches(r, type));
  if (range === undefined) expect.fail(`${where}: media type ${type} is not among the documented ${Object.keys(content).join(', ')}`);
  const ref = content[range].schema.$ref;
  if (ref !== undefined) expectMatches(ref.replace('#/components/schemas/', ''), response.body, where);
}
