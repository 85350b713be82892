// A render page is warmed when it opens (render-page.ts, shell-document.ts#warmUpMarkup), so the
// first card it draws does not wait for the faces most cards use. Checked from the page's own
// FontFaceSet: a face that is still "unloaded" would be fetched and decoded by the first card.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { RenderPage } from '../src/cards/render/render-page.js';
import { buildShellDocument } from '../src/cards/render/shell-document.js';
import { loadThemes } from '../src/cards/themes/registry.js';
import { launchBrowser } from './helpers/browser.js';

describe('a render page as it opens', () => {
  let browser: Browser;
  let page: RenderPage;
  before(async () => {
    browser = await launchBrowser();
    page = await RenderPage.open(browser, buildShellDocument(loadThemes(undefined)), { warmUp: true });
  });
  after(async () => {
    await page.close();
    await browser.close();
  });

  it('loads no face beyond the shell when a request waits for it (the request warms what it uses)', async () => {
    const cold = await RenderPage.open(browser, buildShellDocument(loadThemes(undefined)), { warmUp: false });
    try {
      const loaded = await cold.evaluate<string[]>(`[...document.fonts].filter((face) => face.status !== 'unloaded').map((face) => face.family)`);
      assert.deepEqual(loaded, []);
    } finally {
      await cold.close();
    }
  });

  it('has loaded the faces of a first formula, code block, CJK text and emoji', async () => {
    const loaded = new Set(await page.evaluate<string[]>(`[...document.fonts].filter((face) => face.status === 'loaded').map((face) => face.family.replaceAll('"', ''))`));
    // A sum inline and displayed (KaTeX_Size1, KaTeX_Size2), a letter in math italic, the digits.
    for (const family of ['KaTeX_Main', 'KaTeX_Math', 'KaTeX_Size1', 'KaTeX_Size2']) assert.ok(loaded.has(family), `${family} is not loaded: ${[...loaded].join(', ')}`);
    const families = [...loaded].join(', ');
    assert.match(families, /Noto Sans SC/, 'the common Chinese characters');
    assert.match(families, /Noto Color Emoji|Twemoji|emoji/i, 'emoji');
    assert.match(families, /Mono|Code/i, 'the monospace face of code');
  });
});
