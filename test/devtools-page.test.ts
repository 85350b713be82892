// The service's DevTools client on a real Chromium (src/cards/render/devtools/): what the render and
// diagram pages rely on it for. Values cross into and out of the page whole; every request of the
// page, and of a frame inside it, reaches the page's handler; a crash is reported; a failed launch
// says why; a closed browser leaves neither process nor profile folder.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { BrowserInstance } from '../src/cards/render/browser-instance.js';
import { BrowserPage, type PageRequest } from '../src/cards/render/devtools/browser-page.js';
import { launchChromium } from '../src/cards/render/devtools/chromium-process.js';
import { eventually, processesInGroups } from './helpers/processes.js';
import { launchRenderBrowser } from './helpers/render-browser.js';

const origin = 'http://cards.test';

describe('a page of the DevTools client', () => {
  let browser: BrowserInstance;
  before(async () => {
    browser = await launchRenderBrowser();
  });
  after(async () => browser.close());

  /**
   * Opens a page whose handler answers `documents` by address, records every request and refuses
   * the rest, loads the first document in it, and hands it to `use`; closes it after.
   */
  async function onPage(documents: Record<string, string>, use: (page: BrowserPage, requested: string[]) => Promise<void>): Promise<void> {
    const requested: string[] = [];
    const route = async (request: PageRequest) => {
      requested.push(request.url);
      const body = documents[request.url];
      if (body === undefined) return request.abort();
      return request.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body });
    };
    const page = await BrowserPage.open(browser.connection, { javaScriptEnabled: false, viewport: { width: 400, height: 300 }, route });
    try {
      await page.goto(Object.keys(documents)[0]!);
      await use(page, requested);
    } finally {
      await page.close().catch(() => {});
    }
  }

  it('passes arguments in and results out whole, Infinity and NaN included, and awaits promises', async () => {
    await onPage({ [`${origin}/`]: '<p>hello</p>' }, async (page) => {
      const echoed = await page.evaluate((input: { limit: number; nothing: number; list: number[]; text: string }) => ({ ...input, sum: input.list.reduce((a, b) => a + b, 0) }), {
        limit: Infinity,
        nothing: Number.NaN,
        list: [1, -Infinity, 2],
        text: 'quotes " and \u2028 and 中文',
      });
      assert.deepEqual(echoed, { limit: Infinity, nothing: Number.NaN, list: [1, -Infinity, 2], text: 'quotes " and \u2028 and 中文', sum: -Infinity });
      // Scripts are off, so no timer of the page fires: a promise the engine settles stands for one.
      assert.equal(await page.evaluate(async () => document.fonts.ready.then(() => document.querySelector('p')!.textContent)), 'hello');
      assert.equal(await page.evaluate<number>('document.querySelectorAll("p").length // a comment at the end'), 1);
      assert.equal(await page.evaluate(() => undefined), undefined);
    });
  });

  it("rejects with the page's own error when a script throws or its promise is rejected", async () => {
    await onPage({ [`${origin}/`]: '<p>hello</p>' }, async (page) => {
      await assert.rejects(page.evaluate('document.querySelector("p").missing.deeper'), (error: Error) => error.name === 'PageScriptError' && /TypeError: Cannot read properties of undefined/.test(error.message));
      await assert.rejects(page.evaluate(async () => Promise.reject(new RangeError('too far'))), /RangeError: too far/);
    });
  });

  it('sends every request to the handler: the document, its pictures, styles and frames, and what a frame of another origin asks for', async () => {
    await onPage({
      [`${origin}/`]: `<link rel="stylesheet" href="http://styles.test/a.css"><img src="http://pictures.test/a.png"><iframe src="http://frame.test/"></iframe>`,
      'http://frame.test/': '<img src="http://frame.test/inner.png"><img src="http://127.0.0.1:9/loopback.png">',
    }, async (_page, requested) => {
      await eventually(() => requested.length >= 6, 5_000);
      for (const url of [`${origin}/`, 'http://styles.test/a.css', 'http://pictures.test/a.png', 'http://frame.test/', 'http://frame.test/inner.png', 'http://127.0.0.1:9/loopback.png']) {
        assert.ok(requested.includes(url), `${url} reached the handler (it saw ${requested.join(', ')})`);
      }
    });
  });

  it('runs no script of the document when scripts are off, in a frame of another origin neither', async () => {
    // A script that ran would ask for a picture: its request would reach the handler.
    await onPage({
      [`${origin}/`]: `<p id="mark">untouched</p><script>document.getElementById('mark').textContent = 'ran'; new Image().src = '/ran.png'</script><iframe src="http://frame.test/"></iframe>`,
      'http://frame.test/': `<img src="http://frame.test/loaded.png"><script>new Image().src = 'http://frame.test/ran.png'</script>`,
    }, async (page, requested) => {
      assert.ok(await eventually(() => requested.includes('http://frame.test/loaded.png'), 5_000), 'the frame loaded');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(await page.evaluate(() => document.getElementById('mark')!.textContent), 'untouched');
      assert.deepEqual(requested.filter((url) => url.endsWith('/ran.png')), []);
    });
  });

  it('reports a crash of its renderer to its listeners, at once for one that comes later', async () => {
    await onPage({ [`${origin}/`]: '<p>hello</p>' }, async (page) => {
      const crashed = new Promise<void>((resolve) => page.onCrash(resolve));
      page.session.send('Page.crash').catch(() => {});
      await crashed;
      assert.equal(page.crashed, true);
      await new Promise<void>((resolve) => page.onCrash(resolve));
    });
  });
});

describe('launching Chromium', () => {
  it('says why when the browser exits at once or cannot be started', async () => {
    await assert.rejects(launchChromium({ executablePath: '/bin/false', args: [] }), /Chromium exited while starting \(code 1\)/);
    await assert.rejects(launchChromium({ executablePath: '/nonexistent/chromium', args: [] }), /ENOENT/);
  });

  it('leaves no process and no profile folder once closed', async () => {
    const browser = await launchRenderBrowser();
    const commandLine = fs.readFileSync(`/proc/${browser.pid}/cmdline`, 'utf8').split('\0');
    const profile = commandLine.find((argument) => argument.startsWith('--user-data-dir='))!.slice('--user-data-dir='.length);
    assert.ok(fs.existsSync(profile), 'the profile folder exists while the browser runs');
    await browser.close();
    assert.deepEqual(processesInGroups([browser.pid!]), []);
    for (let i = 0; i < 50 && fs.existsSync(profile); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(fs.existsSync(profile), false, 'the profile folder is removed');
  });
});
