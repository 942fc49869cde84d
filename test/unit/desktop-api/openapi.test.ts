import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { API_VERSION, buildOpenApiDocument, OPENAPI_FILE, ROUTES } from '../../../src/desktop-api/openapi.js';

describe('desktop-api/openapi', () => {
  it('the committed openapi.json equals the document generated from the zod schemas (run `npm run openapi:desktop`)', () => {
    const committed: unknown = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    expect(committed).to.deep.equal(JSON.parse(JSON.stringify(buildOpenApiDocument(API_VERSION))));
  });

  it('documents the 16 REST endpoints, the event stream and the document itself', () => {
    const doc = buildOpenApiDocument(API_VERSION) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).to.equal('3.1.0');
    const ops = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`));
    expect(ops).to.include.members([
      'GET /api/health',
      'GET /api/dashboard/stats',
      'GET /api/traffic/stats',
      'GET /api/alerts',
      'POST /api/alerts/{id}/acknowledge',
      'DELETE /api/alerts/{id}',
      'GET /api/threats',
      'GET /api/ml/stats',
      'POST /api/monitoring/start',
      'POST /api/monitoring/stop',
      'POST /api/firewall/block',
      'POST /api/firewall/unblock',
      'GET /api/firewall/blocked',
      'GET /api/monitoring/interfaces',
      'GET /api/flows',
      'GET /api/pairing',
      'GET /api/events',
      'GET /api/openapi.json',
    ]);
    expect(ops).to.have.length(ROUTES.length);
  });
});
