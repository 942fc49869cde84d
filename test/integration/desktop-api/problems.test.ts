/** One error model: every bad input answers application/problem+json with a stable code and a detail naming the field. */
import { expect } from 'chai';
import type { ProblemBody } from '../../../src/http/problem.js';
import { createTestContext, type TestContext, type TestResponse } from './context.js';

type Problem = ProblemBody & { errors?: Array<{ path: string; message: string }> };

function expectProblem(r: TestResponse<Problem>, status: number, code: string, path: string): void {
  expect(r.status).to.equal(status);
  expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(r.body).to.include({ status, code, type: `urn:vigil:problem:${code}` });
  expect(r.body.instance).to.equal(path.split('?')[0]);
  expect(r.body.detail)
    .to.be.a('string')
    .and.not.match(/at .*\.ts:\d+/); // never a stack trace
}

describe('desktop API problem responses', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ detection: false });
  });
  after(async () => ctx.close());

  it('unknown alert id: 404 alert_not_found for acknowledge, get and delete', async () => {
    for (const [method, path] of [
      ['POST', '/api/alerts/999999/acknowledge'],
      ['GET', '/api/alerts/999999'],
      ['DELETE', '/api/alerts/999999'],
    ]) {
      const r = await ctx.request<Problem>(method, path);
      expectProblem(r, 404, 'alert_not_found', path);
      expect(r.body.detail).to.contain('999999');
    }
  });

  it('non-numeric or zero alert id: 400 naming id', async () => {
    for (const path of ['/api/alerts/abc/acknowledge', '/api/alerts/0/acknowledge', '/api/alerts/1.5/acknowledge']) {
      const r = await ctx.request<Problem>('POST', path);
      expectProblem(r, 400, 'validation_failed', path);
      expect(r.body.errors?.map((e) => e.path)).to.deep.equal(['id']);
    }
  });

  it('limit outside 1..500 or not a number: 400 naming limit', async () => {
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'limit=-1', 'limit=10.5', 'limit=1&limit=2']) {
      const r = await ctx.request<Problem>('GET', `/api/alerts?${q}`);
      expectProblem(r, 400, 'validation_failed', '/api/alerts');
      expect(
        r.body.errors?.map((e) => e.path),
        q,
      ).to.deep.equal(['limit']);
      expect(r.body.detail).to.contain('limit');
    }
  });

  it('bad filters and cursor: 400 naming the field', async () => {
    for (const [q, field] of [
      ['severity=extreme', 'severity'],
      ['acknowledged=maybe', 'acknowledged'],
      ['before=x', 'before'],
      ['bogus=1', 'bogus'],
    ]) {
      const r = await ctx.request<Problem>('GET', `/api/alerts?${q}`);
      expectProblem(r, 400, 'validation_failed', '/api/alerts');
      expect(JSON.stringify(r.body.errors), q).to.contain(field);
    }
  });

  it('invalid IP addresses: 400 invalid_ip naming ip (IPv4, IPv6 and prefix forms checked)', async () => {
    for (const ip of ['999.1.1.1', '1.2.3', 'example.com', '2001:db8::g', '', '1.2.3.4/33', '0.0.0.0/0', '10.0.0.0/7', 'x'.repeat(200)]) {
      const r = await ctx.request<Problem>('POST', '/api/firewall/block', { body: { ip } });
      expectProblem(r, 400, 'invalid_ip', '/api/firewall/block');
      expect(
        r.body.errors?.map((e) => e.path),
        ip,
      ).to.deep.equal(['ip']);
    }
    const notString = await ctx.request<Problem>('POST', '/api/firewall/block', { body: { ip: 42 } });
    expectProblem(notString, 400, 'validation_failed', '/api/firewall/block');
    expect(notString.body.errors?.map((e) => e.path)).to.deep.equal(['ip']);
    const missing = await ctx.request<Problem>('POST', '/api/firewall/unblock', { body: {} });
    expectProblem(missing, 400, 'validation_failed', '/api/firewall/unblock');
    expect(missing.body.errors?.map((e) => e.path)).to.deep.equal(['ip']);
  });

  it('reason over 500 characters or a bad duration: 400 naming the field; 500 characters is fine', async () => {
    const long = await ctx.request<Problem>('POST', '/api/firewall/block', { body: { ip: '203.0.113.9', reason: 'x'.repeat(501) } });
    expectProblem(long, 400, 'validation_failed', '/api/firewall/block');
    expect(long.body.errors?.map((e) => e.path)).to.deep.equal(['reason']);
    const dur = await ctx.request<Problem>('POST', '/api/firewall/block', { body: { ip: '203.0.113.9', durationSeconds: -5 } });
    expect(dur.body.errors?.map((e) => e.path)).to.deep.equal(['durationSeconds']);
    const ok = await ctx.request('POST', '/api/firewall/block', { body: { ip: '203.0.113.9', reason: 'y'.repeat(500) } });
    expect(ok.status).to.equal(200);
    expect((await ctx.request('POST', '/api/firewall/unblock', { body: { ip: '203.0.113.9' } })).status).to.equal(200);
  });

  it('reason with control characters (ESC, BEL, CR, NUL, C1, bidi): 400 validation_failed naming reason and the character', async () => {
    for (const [reason, where] of [
      ['\u001b]0;owned\u0007', 'U+001B at character 1'],
      ['ok\u0007', 'U+0007 at character 3'],
      ['a\rb', 'U+000D at character 2'],
      ['a\u0000', 'U+0000 at character 2'],
      ['\u009b2J', 'U+009B at character 1'],
      ['exe.\u202etxt', 'U+202E at character 5'],
    ]) {
      const r = await ctx.request<Problem>('POST', '/api/firewall/block', { body: { ip: '203.0.113.9', reason } });
      expectProblem(r, 400, 'validation_failed', '/api/firewall/block');
      expect(r.body.detail).to.equal(`reason contains the control character ${where}; a reason is one line of printable text`);
      expect(r.body.errors?.map((e) => e.path)).to.deep.equal(['reason']);
    }
    const listed = await ctx.request<{ total: number }>('GET', '/api/firewall/blocked');
    expect(listed.body.total).to.equal(0);
  });

  it('unblocking an address that is not blocked: 404 problem', async () => {
    const r = await ctx.request<Problem>('POST', '/api/firewall/unblock', { body: { ip: '198.51.100.200' } });
    expect(r.status).to.equal(404);
    expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(r.body.detail).to.contain('198.51.100.200');
  });

  it('body that is not JSON: 400 invalid_json', async () => {
    const r = await ctx.request<Problem>('POST', '/api/firewall/block', { rawBody: '{"ip": "1.2.3.4",', headers: { 'content-type': 'application/json' } });
    expectProblem(r, 400, 'invalid_json', '/api/firewall/block');
  });

  it('a body that is not declared as JSON, to an endpoint that takes one: 400 invalid_json naming the type', async () => {
    const plain = await ctx.request<Problem>('POST', '/api/firewall/block', { rawBody: 'x', headers: { 'content-type': 'text/plain' } });
    expectProblem(plain, 400, 'invalid_json', '/api/firewall/block');
    expect(plain.body.detail).to.contain('Content-Type: text/plain').and.contain('application/json');
    const form = await ctx.request<Problem>('POST', '/api/firewall/unblock', {
      rawBody: 'ip=203.0.113.9',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(form, 400, 'invalid_json', '/api/firewall/unblock');
    const start = await ctx.request<Problem>('POST', '/api/monitoring/start', {
      rawBody: '{"interface":"lo"}',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    expectProblem(start, 400, 'invalid_json', '/api/monitoring/start');
    expect(ctx.monitoring.state().running).to.equal(false);
    expect((await ctx.firewall.list()).total).to.equal(0);
  });

  it('bodiless POSTs still work, with or without a content type', async () => {
    const stop = await ctx.request<{ running: boolean }>('POST', '/api/monitoring/stop');
    expect(stop.status).to.equal(200);
    expect(stop.body.running).to.equal(false);
    const typed = await ctx.request<{ running: boolean }>('POST', '/api/monitoring/stop', { rawBody: '', headers: { 'content-type': 'text/plain' } });
    expect(typed.status).to.equal(200);
    expect(typed.body.running).to.equal(false);
  });

  it('unknown route: 404 route_not_found; wrong method: 405', async () => {
    expectProblem(await ctx.request<Problem>('GET', '/api/nothing-here'), 404, 'route_not_found', '/api/nothing-here');
    expectProblem(await ctx.request<Problem>('GET', '/index.html'), 404, 'route_not_found', '/index.html'); // `/` is the dashboard
    const r = await ctx.request<Problem>('PUT', '/api/alerts');
    expectProblem(r, 405, 'method_not_allowed', '/api/alerts');
  });
});
