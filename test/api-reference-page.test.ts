// The API reference page at /docs in real Chromium, reached the way a team reaches a deployment:
// by a host name that is not loopback, over plain HTTP. Browsers exempt only loopback from
// `upgrade-insecure-requests`, so this is where a Content-Security-Policy carrying it leaves the
// page blank. The name cards.test resolves to 127.0.0.1 inside this browser only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage } from './helpers/browser.js';
import { startService, type RunningService } from './helpers/service.js';

describe('API reference page', () => {
  let service: RunningService;
  let browser: Browser;
  before(async () => {
    service = await startService();
    browser = await launchBrowser(['--host-resolver-rules=MAP cards.test 127.0.0.1']);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('lists every operation at a non-loopback host name over HTTP, loading nothing from elsewhere', async () => {
    const origin = `http://cards.test:${new URL(service.baseUrl).port}`;
    const watched = await openPage(browser, `${origin}/docs`);
    try {
      const { page } = watched;
      await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
      const operations = await page.locator('.opblock-summary').evaluateAll((blocks) =>
        blocks.map((block) => `${block.querySelector('.opblock-summary-method')?.textContent} ${block.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
      );
      const documentPaths = Object.entries((await (await fetch(`${service.baseUrl}/openapi.json`)).json()).paths as Record<string, object>).flatMap(
        ([route, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`),
      );
      assert.deepEqual(operations.sort(), documentPaths.sort());
      assert.ok(operations.includes('POST /api/generate'));
      assert.ok(operations.includes('POST /api/preview'));
      assert.deepEqual(watched.problems, []);
      const elsewhere = watched.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'));
      assert.deepEqual(elsewhere, [], 'the page requests only its own service');
    } finally {
      await watched.close();
    }
  });
});
