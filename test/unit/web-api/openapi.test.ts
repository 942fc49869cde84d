import { expect } from 'chai';
import type Router from '@koa/router';
import { buildOpenApiDocument, API_VERSION } from '../../../src/desktop-api/openapi.js';
import { loadWebConfig } from '../../../src/config/web.js';
import { createLicenseApp } from '../../../src/web-api/app.js';
import { buildWebOpenApiDocument, REQUEST_COMPONENTS, WEB_ROUTES } from '../../../src/web-api/openapi.js';
import { checkOpenApi31 } from '../../helpers/openapi-check.js';
import { tempDir } from '../../helpers/setup.js';

type Doc = { paths: Record<string, Record<string, { operationId: string }>>; components: { schemas: Record<string, unknown> } };

/** The routes the app's router serves, as `METHOD /path` (Koa-style paths; HEAD comes with GET). */
function servedRoutes(): string[] {
  const app = createLicenseApp({
    config: loadWebConfig({ VIGIL_WEB_DATA_DIR: tempDir('web-openapi-') }),
    store: {} as never, // not touched while the app is built
    verifier: null,
    signer: { jwks: { keys: [] }, sign: () => Promise.reject(new Error('unused')) },
    rateLimitStore: { driver: 'memory', map: new Map() },
    version: '0.0.0-test',
  });
  const mounted = app.middleware.map((m) => (m as { router?: Router }).router).find((r) => r !== undefined);
  if (mounted === undefined) throw new Error('no router mounted');
  return mounted.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`)).sort();
}

/** Every `type: string` node of a JSON Schema, with where it is. */
function strings(node: unknown, at: string, out: [string, Record<string, unknown>][]): void {
  if (Array.isArray(node)) node.forEach((v, i) => strings(v, `${at}/${i}`, out));
  else if (typeof node === 'object' && node !== null) {
    const o = node as Record<string, unknown>;
    if (o.type === 'string') out.push([at, o]);
    for (const [k, v] of Object.entries(o)) strings(v, `${at}/${k}`, out);
  }
}

describe('web-api/openapi', () => {
  const doc = buildWebOpenApiDocument('1.2.3') as unknown as Doc;

  it('is a valid OpenAPI 3.1 document', () => {
    expect(checkOpenApi31(doc)).to.deep.equal([]);
    expect(doc).to.deep.include({ openapi: '3.1.0' });
  });

  it('the structural check catches what a generated document can get wrong (and passes the desktop document)', () => {
    expect(checkOpenApi31(buildOpenApiDocument(API_VERSION))).to.deep.equal([]);
    const broken = JSON.parse(JSON.stringify(doc)) as Record<string, unknown> & Doc;
    broken.openapi = '3.0.3';
    broken.paths['/api/protected/license-key/{licenseId}'] = broken.paths['/api/protected/license-key/{id}'];
    (broken.components.schemas as Record<string, unknown>).Download = { type: 'text' };
    delete (broken.components.schemas as Record<string, unknown>).Problem;
    const errors = checkOpenApi31(broken);
    expect(errors).to.include('openapi is 3.0.3, not 3.1.x');
    expect(errors).to.include('DELETE /api/protected/license-key/{licenseId}: path parameter id is not in the path');
    expect(errors).to.include('DELETE /api/protected/license-key/{licenseId}: {licenseId} has no path parameter');
    expect(errors).to.include('#/components/schemas/Download: unknown type text');
    expect(errors.filter((e) => e.includes('$ref #/components/schemas/Problem does not resolve')).length).to.be.greaterThan(5);
  });

  it('documents exactly the routes the app serves', () => {
    const documented = WEB_ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
    expect(servedRoutes()).to.deep.equal(documented);
    const ops = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`));
    expect(ops).to.have.length(WEB_ROUTES.length);
    expect(ops).to.include.members(['GET /api/openapi.json', 'DELETE /api/protected/license-key/{id}', 'POST /api/license-key/validate']);
  });

  it('bounds every string a request may carry (maxLength, an enumeration or a UUID)', () => {
    const found: [string, Record<string, unknown>][] = [];
    for (const name of Object.keys(REQUEST_COMPONENTS)) strings(doc.components.schemas[name], name, found);
    expect(found.map(([at]) => at)).to.include.members(['ValidateLicenseRequest/properties/key', 'RecordDownloadRequest/properties/version']);
    const unbounded = found.filter(([, s]) => typeof s.maxLength !== 'number' && s.enum === undefined && s.const === undefined && s.format !== 'uuid');
    expect(unbounded.map(([at]) => at)).to.deep.equal([]);
  });
});
