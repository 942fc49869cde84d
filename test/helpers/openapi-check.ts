/**
 * A structural check of an OpenAPI 3.1 document (no validator package is installed): the rules of the specification
 * that a generated document can break. Returns one message per violation, empty when the document passes.
 * - `openapi` is 3.1.x; `info` has a title and a version;
 * - path keys start with `/`; path items hold only operations and the fields 3.1 allows;
 * - every operation has responses keyed by a status code (or `1XX`..`5XX`, `default`), each with a description and
 *   media types carrying a schema; operationIds are unique;
 * - every `{name}` of a path template has a required `in: path` parameter, and every path parameter appears in the
 *   template; parameters have a name, a valid `in` and a schema;
 * - security requirements name declared security schemes;
 * - every `$ref` is a local JSON pointer that resolves;
 * - every component schema is an object using only JSON Schema (draft 2020-12) type names.
 */

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const PATH_ITEM_FIELDS = new Set([...METHODS, '$ref', 'summary', 'description', 'servers', 'parameters']);
const PARAM_IN = new Set(['query', 'header', 'path', 'cookie']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function resolvePointer(doc: unknown, ref: string): unknown {
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(node) || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

/** Every `$ref` value in `node`, with where it was found. */
function refs(node: unknown, at: string, out: [string, string][]): void {
  if (Array.isArray(node)) node.forEach((v, i) => refs(v, `${at}/${i}`, out));
  else if (isObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push([at, v]);
      else refs(v, `${at}/${k}`, out);
    }
  }
}

/** Type names used anywhere in a JSON Schema. */
function schemaTypes(node: unknown, at: string, out: [string, unknown][]): void {
  if (Array.isArray(node)) node.forEach((v, i) => schemaTypes(v, `${at}/${i}`, out));
  else if (isObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'type' && (typeof v === 'string' || Array.isArray(v))) for (const t of [v].flat()) out.push([at, t]);
      else if (k !== 'properties' || !isObject(v)) schemaTypes(v, `${at}/${k}`, out);
      else for (const [name, sub] of Object.entries(v)) schemaTypes(sub, `${at}/properties/${name}`, out);
    }
  }
}

/** The violations of the rules above in `doc`. */
export function checkOpenApi31(doc: unknown): string[] {
  const errors: string[] = [];
  if (!isObject(doc)) return ['the document is not an object'];
  if (typeof doc.openapi !== 'string' || !/^3\.1\.\d+$/.test(doc.openapi)) errors.push(`openapi is ${String(doc.openapi)}, not 3.1.x`);
  const info = doc.info;
  if (!isObject(info) || typeof info.title !== 'string' || typeof info.version !== 'string') errors.push('info needs a title and a version');
  const components = isObject(doc.components) ? doc.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const checkSecurity = (security: unknown, at: string): void => {
    if (security === undefined) return;
    if (!Array.isArray(security)) return void errors.push(`${at}: security is not an array`);
    for (const req of security)
      for (const name of Object.keys(isObject(req) ? req : {})) if (!(name in schemes)) errors.push(`${at}: unknown security scheme ${name}`);
  };
  checkSecurity(doc.security, 'document');
  if (!isObject(doc.paths)) errors.push('paths is not an object');
  const operationIds = new Set<string>();
  for (const [p, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!p.startsWith('/')) errors.push(`path ${p} does not start with /`);
    if (!isObject(item)) {
      errors.push(`${p}: path item is not an object`);
      continue;
    }
    for (const key of Object.keys(item)) if (!PATH_ITEM_FIELDS.has(key)) errors.push(`${p}: unknown path item field ${key}`);
    const templated = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, op] of Object.entries(item).filter(([k]) => METHODS.has(k))) {
      const at = `${method.toUpperCase()} ${p}`;
      if (!isObject(op)) {
        errors.push(`${at}: operation is not an object`);
        continue;
      }
      if (typeof op.operationId === 'string') {
        if (operationIds.has(op.operationId)) errors.push(`${at}: duplicate operationId ${op.operationId}`);
        operationIds.add(op.operationId);
      }
      const params = Array.isArray(op.parameters) ? op.parameters : [];
      for (const param of params) {
        if (!isObject(param) || typeof param.name !== 'string' || !PARAM_IN.has(String(param.in))) errors.push(`${at}: a parameter lacks name or a valid in`);
        else if (param.schema === undefined && param.content === undefined) errors.push(`${at}: parameter ${param.name} has neither schema nor content`);
        else if (param.in === 'path' && param.required !== true) errors.push(`${at}: path parameter ${param.name} is not required`);
        else if (param.in === 'path' && !templated.includes(param.name)) errors.push(`${at}: path parameter ${param.name} is not in the path`);
      }
      for (const name of templated)
        if (!params.some((q) => isObject(q) && q.in === 'path' && q.name === name)) errors.push(`${at}: {${name}} has no path parameter`);
      if (op.requestBody !== undefined && (!isObject(op.requestBody) || !isObject(op.requestBody.content))) errors.push(`${at}: requestBody needs content`);
      if (!isObject(op.responses) || Object.keys(op.responses).length === 0) {
        errors.push(`${at}: no responses`);
        continue;
      }
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^([1-5](\d\d|XX)|default)$/.test(status)) errors.push(`${at}: response key ${status} is not a status code`);
        if (!isObject(response) || typeof response.description !== 'string') {
          errors.push(`${at} ${status}: a response needs a description`);
          continue;
        }
        for (const [type, media] of Object.entries(isObject(response.content) ? response.content : {}))
          if (!/^[a-z*]+\/[a-z0-9.+*-]+$/i.test(type) || !isObject(media) || !isObject(media.schema))
            errors.push(`${at} ${status}: media type ${type} needs a schema`);
      }
      checkSecurity(op.security, at);
    }
  }
  const found: [string, string][] = [];
  refs(doc, '#', found);
  for (const [at, ref] of found) {
    if (!ref.startsWith('#/')) errors.push(`${at}: $ref ${ref} is not local`);
    else if (resolvePointer(doc, ref) === undefined) errors.push(`${at}: $ref ${ref} does not resolve`);
  }
  for (const [name, schema] of Object.entries(isObject(components.schemas) ? components.schemas : {})) {
    if (!isObject(schema)) errors.push(`components.schemas.${name} is not an object`);
    const types: [string, unknown][] = [];
    schemaTypes(schema, `#/components/schemas/${name}`, types);
    for (const [at, t] of types) if (typeof t !== 'string' || !TYPES.has(t)) errors.push(`${at}: unknown type ${String(t)}`);
  }
  return errors;
}
