/**
 * The real browser of the dashboard tests: Debian's chromium (`/usr/bin/chromium`, installed by `.ci/run`) driven by
 * playwright-core, headless; nothing is downloaded. Each page records its requests, responses and console errors.
 */
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where Debian installs chromium. */
export const CHROMIUM = '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  // As root chromium refuses its sandbox; the tests load only the local server's page.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

/** A page with its traffic and console recorded. */
export interface RecordedPage {
  page: Page;
  /** `METHOD path?query` of every request the page made, in order. */
  requests: string[];
  /** Status of every response, by request, in order. */
  statuses: number[];
  /** Console errors and uncaught page errors. */
  errors: string[];
}

export async function recordedPage(browser: Browser, options: { clock?: boolean } = {}): Promise<RecordedPage> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  if (options.clock) await page.clock.install();
  const rec: RecordedPage = { page, requests: [], statuses: [], errors: [] };
  page.on('request', (r) => {
    const u = new URL(r.url());
    rec.requests.push(`${r.method()} ${u.pathname}${u.search}`);
  });
  page.on('response', (r) => rec.statuses.push(r.status()));
  page.on('console', (m) => {
    if (m.type() === 'error') rec.errors.push(m.text());
  });
  page.on('pageerror', (e) => rec.errors.push(`pageerror: ${e.message}`));
  return rec;
}
