// A real Chromium for end-to-end tests of the web page: the same binary the service renders with,
// driven by playwright-core. Each test gets a fresh context (no cookies, no localStorage) and a
// record of console errors and of every request the page made.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { findChromium } from '../../src/cards/render/chromium-executable.js';

/** `args` adds Chromium switches, e.g. --host-resolver-rules to reach the service by another host name. */
export async function launchBrowser(args: string[] = []): Promise<Browser> {
  const executable = await findChromium(process.env.CHROMIUM_PATH);
  return chromium.launch({ executablePath: executable.path, chromiumSandbox: false, args: ['--disable-gpu', '--font-render-hinting=none', ...args] });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions, in words. */
  problems: string[];
  /** Every URL the page or its frames requested. */
  requests: string[];
  close(): Promise<void>;
}

export async function openPage(
  browser: Browser,
  url: string,
  viewport: { width: number; height: number } = { width: 1440, height: 900 },
  /** The browser's languages, e.g. "zh-CN" (navigator.languages); Playwright's default is en-US. */
  locale?: string,
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, ...(locale ? { locale } : {}) });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`exception: ${error.message}`));
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(url);
  return { context, page, problems, requests, close: () => context.close() };
}
