/**
 * The dashboard in a real browser (chromium through playwright-core) against the real desktop server: port 0, a real
 * SQLite file, the real sensor replaying the nmap SYN port scan through the addon and detection raising its alert.
 * The scan's addresses are private, so the map's threat is seeded through the store (203.0.113.77, Berlin), the way
 * the API tests seed a located threat. The firewall is the record-only `none` backend.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { buildDashboard } from '../../../scripts/build-dashboard.mjs';
import { getAlert, insertAlert } from '../../../src/store/repos/alert.repo.js';
import { upsertThreat } from '../../../src/store/repos/threat.repo.js';
import { createTestContext, pcap, rawRequest, type TestContext } from '../desktop-api/context.js';
import { makeFlow } from '../../unit/detect/flow-factory.js';
import { launchBrowser, recordedPage, type RecordedPage } from './browser.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const SHOTS = path.join(ROOT, '.cache', 'dashboard-screenshots');
const THREAT = '203.0.113.77';

interface AlertBody {
  id: number;
  title: string;
  acknowledged: boolean;
}

async function seedThreat(ctx: TestContext): Promise<void> {
  const now = new Date().toISOString();
  await upsertThreat(ctx.store, {
    ip: THREAT,
    severity: 'critical',
    score: 0.97,
    category: 'brute_force',
    alerts: 3,
    first_seen: now,
    last_seen: now,
    country: 'Germany',
    country_code: 'DE',
    city: 'Berlin',
    latitude: 52.52,
    longitude: 13.405,
    updated_at: now,
  });
}

describe('dashboard in chromium (port scan replayed, real desktop server)', function () {
  this.timeout(120_000);
  let ctx: TestContext;
  let browser: Browser;
  const pages: RecordedPage[] = [];

  async function open(hash = '', options: { clock?: boolean } = {}): Promise<RecordedPage> {
    const rec = await recordedPage(browser, options);
    pages.push(rec);
    await rec.page.goto(`${ctx.url}/${hash}`);
    return rec;
  }

  let manifest: { js: string; css: string };

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    manifest = await buildDashboard();
    ctx = await createTestContext({ env: { VIGIL_CAPTURE_FILE: pcap('ndpi_nmap_syn_portscan.pcap') } });
    await ctx.replayToEnd();
    await ctx.liveStats.tick();
    await seedThreat(ctx);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  it('the bundle (map data included) is at most 300 KB gzipped, and the page references only it', async () => {
    const dir = path.join(ROOT, 'dist', 'dashboard');
    const gz = gzipSync(Buffer.concat([readFileSync(path.join(dir, manifest.js)), readFileSync(path.join(dir, manifest.css))])).length;
    expect(gz).to.be.below(300 * 1024);
    const html = (await rawRequest(`${ctx.url}/`)).text;
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs).to.deep.equal(['data:,', `/dashboard/${manifest.css}`, `/dashboard/${manifest.js}`]);
    const js = await rawRequest(`${ctx.url}/dashboard/${manifest.js}`);
    expect(js.status).to.equal(200);
    expect(js.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect((await rawRequest(`${ctx.url}/dashboard/other.js`)).status).to.equal(404);
  });

  it('GET / is the page: strict CSP, never framed, no CORS header, refused under a foreign Host', async () => {
    const r = await rawRequest(`${ctx.url}/`, { headers: { 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document', 'Sec-Fetch-Site': 'none' } });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("script-src 'self'").and.include("frame-ancestors 'none'").and.include("default-src 'none'");
    expect(csp).not.to.include('unsafe-inline');
    expect(r.text).not.to.match(/<script>|<script [^>]*>[^<]/); // no inline script
    expect([...r.headers.keys()].filter((k) => k.startsWith('access-control-'))).to.deep.equal([]);
    // A cross-site navigation still shows the page (another site cannot read it); a cross-site fetch gets nothing.
    const crossNav = await rawRequest(`${ctx.url}/`, {
      headers: { 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document', 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(crossNav.status).to.equal(200);
    expect([...crossNav.headers.keys()].filter((k) => k.startsWith('access-control-'))).to.deep.equal([]);
    const crossFetch = await rawRequest<{ code: string }>(`${ctx.url}/`, {
      headers: { 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' },
    });
    expect(crossFetch.status).to.equal(401);
    expect(crossFetch.body.code).to.equal('token_required');
    const rebound = await rawRequest<{ code: string }>(`${ctx.url}/`, { headers: { Host: 'evil.example' } });
    expect(rebound.status).to.equal(403);
    expect(rebound.body.code).to.equal('host_not_allowed');
  });

  it('the page key works from the page itself only: another origin with it is refused', async () => {
    const html = (await rawRequest(`${ctx.url}/`)).text;
    const key = /name="vigil-page-key" content="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(key).to.have.length(43);
    expect(key).not.to.equal(ctx.token);
    const own = await rawRequest(`${ctx.url}/api/alerts/999999/acknowledge`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Sec-Fetch-Site': 'same-origin', Origin: ctx.url },
    });
    expect(own.status).to.equal(404); // past access control: the alert does not exist
    const noKey = await rawRequest<{ code: string }>(`${ctx.url}/api/alerts/999999/acknowledge`, {
      method: 'POST',
      headers: { 'Sec-Fetch-Site': 'same-origin', Origin: ctx.url },
    });
    expect(noKey.status).to.equal(401);
    expect(noKey.body.code).to.equal('token_required');
    const foreign = await rawRequest<{ code: string }>(`${ctx.url}/api/alerts`, {
      headers: { Authorization: `Bearer ${key}`, 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' },
    });
    expect(foreign.status).to.equal(401);
    expect(foreign.body.code).to.equal('invalid_token');
  });

  it("loads in at most 10 requests and shows the newest alert's title and the counters", async () => {
    const newest = (await ctx.request<{ alerts: AlertBody[] }>('GET', '/api/alerts?limit=1')).body.alerts[0];
    expect(newest.title).to.be.a('string').and.not.equal('');
    const rec = await recordedPage(browser);
    pages.push(rec);
    const { page } = rec;
    await page.goto(`${ctx.url}/`);
    await page.locator('.counter').first().waitFor();
    await page.locator('.newest-alerts .alert-title').first().waitFor();
    expect(await page.locator('.newest-alerts .alert-title').first().textContent()).to.equal(newest.title);
    await page.locator('.counter dd').first().waitFor();
    expect(await page.locator('.counter', { hasText: 'Packets' }).first().locator('dd').textContent()).to.equal('2,011');
    await page.locator('table.top caption', { hasText: 'Top talkers' }).waitFor();
    expect(await page.locator('table.top', { hasText: 'Top talkers' }).textContent()).to.include('64.13.134.52');
    await page.locator('#interface option').nth(1).waitFor({ state: 'attached' });
    await page.waitForTimeout(1000); // anything late would be counted too
    expect(rec.requests.length, rec.requests.join('\n')).to.be.at.most(10);
    expect(rec.requests).to.include('GET /api/events');
    expect(await page.getByRole('button', { name: 'Start capture' }).isEnabled()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Stop capture' }).isDisabled()).to.equal(true);
  });

  it('shows the threat on the map at its location and opens its detail on click', async () => {
    const { page } = await open('#map');
    const marker = page.locator(`circle.threat-marker[data-ip="${THREAT}"]`);
    await marker.waitFor();
    expect(await marker.getAttribute('class')).to.include('sev-critical');
    expect(Number(await marker.getAttribute('r'))).to.equal(13); // the largest size: critical
    // Berlin (52.52 N, 13.4 E) is right of the centre meridian and in the upper third of the map.
    const cx = Number(await marker.getAttribute('cx'));
    const cy = Number(await marker.getAttribute('cy'));
    expect(cx).to.be.within(480, 560);
    expect(cy).to.be.within(80, 170);
    expect(await page.locator('[data-marker="local"]').count()).to.equal(1);
    await marker.click();
    await page.getByRole('heading', { name: `Threat ${THREAT}` }).waitFor();
    expect(await page.locator('#view-map .detail').textContent()).to.include('Berlin, Germany');
    await page.screenshot({ path: path.join(SHOTS, 'map.png'), fullPage: true });
  });

  it('acknowledges an alert through the page, and the API agrees', async () => {
    const newest = (await ctx.request<{ alerts: AlertBody[] }>('GET', '/api/alerts?limit=1&acknowledged=false')).body.alerts[0];
    expect(newest.acknowledged).to.equal(false);
    const { page } = await open('#alerts');
    await page.getByRole('button', { name: `Details of alert ${newest.id}` }).click();
    await page.getByRole('heading', { name: newest.title }).waitFor();
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await page.locator(`tr.acked[data-alert-id="${newest.id}"]`).waitFor();
    expect(await page.getByRole('button', { name: 'Acknowledge' }).isDisabled()).to.equal(true);
    const api = await ctx.request<AlertBody & { acknowledgedAt: string }>('GET', `/api/alerts/${newest.id}`);
    expect(api.body.acknowledged).to.equal(true);
    expect(api.body.acknowledgedAt).to.be.a('string');
    await page.screenshot({ path: path.join(SHOTS, 'alerts.png'), fullPage: true });
  });

  it('blocks from the threats view for a chosen duration; /api/firewall/blocked lists it; a refusal shows the detail', async () => {
    const { page } = await open('#threats');
    const row = page.locator(`tr[data-threat-ip="${THREAT}"]`);
    await row.waitFor();
    await row.getByRole('combobox', { name: `Block duration for ${THREAT}` }).selectOption('86400');
    const before = Date.now();
    await row.getByRole('button', { name: `Block ${THREAT}` }).click();
    await page.locator(`tr[data-blocked-ip="${THREAT}"]`).waitFor();
    const blocked = await ctx.request<{ blocked: Array<{ ip: string; expiresAt: string | null }> }>('GET', '/api/firewall/blocked');
    const entry = blocked.body.blocked.find((b) => b.ip === THREAT);
    expect(entry, JSON.stringify(blocked.body)).to.not.equal(undefined);
    expect(Date.parse(entry!.expiresAt!) - before).to.be.within(86_000_000, 86_500_000);
    await row.getByRole('button', { name: `Unblock ${THREAT}` }).waitFor();
    // A refusal: a prefix broader than /8 is refused by the API, and the page shows its problem detail.
    const refused = await ctx.request<{ detail: string }>('POST', '/api/firewall/block', { body: { ip: '10.0.0.0/4', reason: 'blocked from the dashboard' } });
    expect(refused.status).to.equal(400);
    await page.getByRole('textbox', { name: 'Address or prefix to block' }).fill('10.0.0.0/4');
    await page.locator('#view-threats > .row').getByRole('button', { name: 'Block' }).click();
    const shown = page.locator('#view-threats > p.error');
    await shown.filter({ hasText: refused.body.detail }).waitFor();
    // Chromium logs every 4xx response as a console error: this one was asked for.
    const rec = pages[pages.length - 1];
    const expected = rec.errors.findIndex((e) => /status of 400/.test(e));
    expect(expected).to.be.at.least(0);
    rec.errors.splice(expected, 1);
    await page.screenshot({ path: path.join(SHOTS, 'threats.png'), fullPage: true });
  });

  it('suppresses an alert through the page for a chosen time; the API agrees; Delete removes the rule; a refusal shows the detail', async () => {
    const alerts = (await ctx.request<{ alerts: Array<AlertBody & { category: string; srcIp: string }> }>('GET', '/api/alerts?limit=500')).body.alerts;
    const scan = alerts.find((a) => a.category === 'port_scan')!;
    const { page, requests } = await open('#alerts');
    const rules = page.locator('#view-alerts table[aria-label="Suppression rules"] tbody');
    await rules.getByText('No suppression rules').waitFor();
    // Opened on the alerts view, the page's load (the rules included) still costs at most 10 requests.
    await page.locator(`#view-alerts tr[data-alert-id="${scan.id}"]`).waitFor();
    expect(requests.length, requests.join('\n')).to.be.at.most(10);
    expect(requests).to.include('GET /api/suppressions');
    await page.getByRole('button', { name: `Details of alert ${scan.id}` }).click();
    await page.getByRole('heading', { name: scan.title }).waitFor();
    await page.getByRole('combobox', { name: 'Suppression duration' }).selectOption('604800');
    const before = Date.now();
    await page.getByRole('button', { name: 'Suppress', exact: true }).click();
    const row = rules.locator('tr[data-suppression-id]');
    await row.waitFor();
    const listed = (await ctx.request<{ suppressions: Array<Record<string, unknown>>; total: number }>('GET', '/api/suppressions')).body;
    expect(listed.total).to.equal(1);
    const rule = listed.suppressions[0]!;
    expect(rule).to.include({ category: 'port_scan', source: scan.srcIp, alertId: scan.id, active: true });
    expect(Date.parse(rule['expiresAt'] as string)).to.be.within(before + 604_800_000, Date.now() + 604_800_000);
    expect(await row.getAttribute('data-suppression-id')).to.equal(String(rule['id']));
    expect(await row.textContent())
      .to.include('port_scan')
      .and.include(scan.srcIp);
    await page.screenshot({ path: path.join(SHOTS, 'suppressions.png'), fullPage: true });
    await row.getByRole('button', { name: 'Delete' }).click();
    await rules.getByText('No suppression rules').waitFor();
    expect((await ctx.request<{ total: number }>('GET', '/api/suppressions')).body.total).to.equal(0);

    // A refusal: an alert with no usable address (seeded in the store) cannot be suppressed; the page shows the detail.
    const { id: _id, ...template } = (await getAlert(ctx.store, scan.id))!;
    const odd = await insertAlert(ctx.store, { ...template, src_ip: '0.0.0.0', dst_ip: null, aggregation_key: 'test|odd', title: 'Alert without an address' });
    const refused = await ctx.request<{ detail: string }>('POST', `/api/alerts/${odd.id}/suppress`, { body: {} });
    expect(refused.status).to.equal(400);
    const second = await open('#alerts');
    await second.page.getByRole('button', { name: `Details of alert ${odd.id}` }).click();
    await second.page.getByRole('heading', { name: 'Alert without an address' }).waitFor();
    await second.page.getByRole('button', { name: 'Suppress', exact: true }).click();
    await second.page
      .locator('#view-alerts .detail p.error')
      .filter({ hasText: refused.body.detail.replace(/^Invalid body: match: /, '') })
      .waitFor();
    // Chromium logs every 4xx response as a console error: this one was asked for.
    const expected = second.errors.findIndex((e) => /status of 400/.test(e));
    expect(expected).to.be.at.least(0);
    second.errors.splice(expected, 1);
    expect((await ctx.request<{ total: number }>('GET', '/api/suppressions')).body.total).to.equal(0);
  });

  it('lists connections from GET /api/flows (with the program of a live flow) and shows the pairing QR code', async () => {
    // A flow as a live Linux capture records it, with the program that owned its socket (a replay carries none).
    const t = Date.now();
    ctx.pipeline.accept([
      makeFlow({
        srcIp: '192.168.1.10',
        dstIp: '198.51.100.44',
        dstPort: 443,
        firstSeenMs: t,
        lastSeenMs: t + 5,
        process: { pid: 4242, name: 'curl', exe: '/usr/bin/curl', user: 'alice', uid: 1000, unit: 'session-2.scope', container: null },
      }),
    ]);
    await ctx.pipeline.idle();
    const { page } = await open('#connections');
    await page.locator('#view-connections tbody tr').nth(5).waitFor();
    expect(await page.locator('#view-connections tbody').textContent()).to.include('64.13.134.52');
    expect(await page.locator('#view-connections thead').textContent()).to.include('Process');
    const cell = page.locator('#view-connections tbody td', { hasText: 'curl (4242)' });
    expect(await cell.getAttribute('title')).to.equal('/usr/bin/curl · user alice · session-2.scope');
    await page.getByRole('textbox', { name: 'Filter by process name' }).fill('curl');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.locator('#view-connections tbody tr').nth(1).waitFor({ state: 'detached' });
    expect(await page.locator('#view-connections tbody tr').count()).to.equal(1);
    expect(await page.locator('#view-connections tbody').textContent()).to.include('198.51.100.44');
    await page.getByRole('tab', { name: 'Pairing' }).click();
    await page.getByRole('img', { name: 'Pairing QR code' }).waitFor();
    expect(await page.locator('#view-pairing .token').textContent()).to.equal(ctx.token);
  });

  it('no page logged a console error', () => {
    expect(pages.length).to.be.greaterThan(4);
    expect(pages.flatMap((p) => p.errors)).to.deep.equal([]);
  });
});
