// A render page is warmed when it opens (render-page.ts, shell-document.ts#warmUpMarkup), so the
// first card it draws does not wait for the faces most cards use. Checked from the page's own
// FontFaceSet: a face that is still "unloaded" would be fetched and decoded by the first card.
// Also what a page keeps between requests besides its faces: the bundled scripts of callScript,
// and not the DOM of the cards it drew (Blink's count of Node objects, garbage included).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserInstance } from '../src/cards/render/browser-instance.js';
import { RenderPage } from '../src/cards/render/render-page.js';
import { buildShellDocument } from '../src/cards/render/shell-document.js';
import { loadThemes } from '../src/cards/themes/registry.js';
import { launchRenderBrowser } from './helpers/render-browser.js';

describe('a render page as it opens', () => {
  let browser: BrowserInstance;
  let page: RenderPage;
  before(async () => {
    browser = await launchRenderBrowser();
    page = await RenderPage.open(browser.connection, buildShellDocument(loadThemes(undefined)), { warmUp: 'all' });
  });
  after(async () => {
    await page.close();
    await browser.close();
  });

  it('loads no face beyond the shell when a request waits for it (the request warms what it uses)', async () => {
    const cold = await RenderPage.open(browser.connection, buildShellDocument(loadThemes(undefined)), { warmUp: 'none' });
    try {
      const loaded = await cold.evaluate<string[]>(`[...document.fonts].filter((face) => face.status !== 'unloaded').map((face) => face.family)`);
      assert.deepEqual(loaded, []);
    } finally {
      await cold.close();
    }
  });

  it('opened with the common warm-up, has the faces of a formula and code, and those of CJK and emoji once warmUpScripts() ran', async () => {
    const partly = await RenderPage.open(browser.connection, buildShellDocument(loadThemes(undefined)), { warmUp: 'common' });
    try {
      const loadedFamilies = async () =>
        (await partly.evaluate<string[]>(`[...document.fonts].filter((face) => face.status === 'loaded').map((face) => face.family.replaceAll('"', ''))`)).join(', ');
      // Subsets of the Chinese face also hold Latin letters, digits and punctuation: counted, not named.
      const chineseFaces = (families: string) => families.split(', ').filter((family) => family === 'Noto Sans SC').length;
      assert.equal(partly.needsScriptsWarmUp, true);
      const before = await loadedFamilies();
      assert.match(before, /KaTeX_Main/);
      assert.match(before, /Mono|Code/i);
      assert.doesNotMatch(before, /emoji/i, 'emoji waits for the rest of the warm-up');
      await partly.warmUpScripts();
      assert.equal(partly.needsScriptsWarmUp, false);
      const after = await loadedFamilies();
      assert.ok(chineseFaces(after) >= chineseFaces(before) + 3, `Chinese subsets loaded: ${chineseFaces(before)} before, ${chineseFaces(after)} after`);
      assert.match(after, /Noto Color Emoji|Twemoji|emoji/i);
      assert.equal(await partly.evaluate<number>(`document.getElementById('cards').children.length`), 0, 'the page is empty again');
    } finally {
      await partly.close();
    }
  });

  it('evaluates a bundled script once per page and calls it there after (callScript)', async () => {
    // State kept between calls shows the script was not evaluated again; another script of the
    // same global name (a test's own pagination bundle) is installed beside it, not over it.
    const counter = 'var probe = { calls: 0, call() { return ++this.calls; } };';
    const other = 'var probe = { call() { return "other"; } };';
    assert.equal(await page.callScript<number>(counter, 'probe', 'call()'), 1);
    assert.equal(await page.callScript<number>(counter, 'probe', 'call()'), 2);
    assert.equal(await page.callScript<string>(other, 'probe', 'call()'), 'other');
    assert.equal(await page.callScript<number>(counter, 'probe', 'call()'), 3);
    await page.clear();
    assert.equal(await page.callScript<number>(counter, 'probe', 'call()'), 4, 'clearing the cards keeps the scripts');
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

  it('keeps no DOM of the cards it drew: its garbage is collected every few requests', async () => {
    // Blink counts Node objects until they are collected. With JavaScript off nothing asks for a
    // collection, and without one every card drawn stayed counted (and in memory).
    const card = `<div class="card card-plain-notes light-mode" style="--card-width:440px;--card-height:586px"><section class="card-content"><div class="card-content-inner">${'<p>A <strong>line</strong> of <em>text</em></p>'.repeat(100)}</div></section></div>`;
    const session = await page.inspect();
    try {
      const nodes = async () => ((await session.send('Memory.getDOMCounters')) as { nodes: number }).nodes;
      const before = await nodes();
      await page.layout(card);
      const perRequest = (await nodes()) - before;
      await page.clear();
      assert.ok(perRequest >= 500, `a card of ${perRequest} nodes`);
      for (let request = 0; request < 60; request++) {
        await page.layout(card);
        await page.clear();
      }
      const kept = (await nodes()) - before;
      assert.ok(kept <= 20 * perRequest, `${kept} nodes kept after 61 requests of ${perRequest}`);
    } finally {
      await session.detach();
    }
  });
});
