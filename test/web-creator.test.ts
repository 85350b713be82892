// The web page for creators, in real Chromium against the real service: the page in Chinese for a
// zh-CN browser (every label translated, switchable, remembered), the cover and signature panel
// writing the front matter with a live preview. (A result downloaded as one ZIP and as a PDF:
// test/web-page.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage } from './helpers/browser.js';
import { startService, type RunningService } from './helpers/service.js';

/**
 * Words a Chinese page may show in Latin letters: the product's name, format and language names,
 * units, key names and size-preset names, the API key's prefix, and the names of technologies.
 */
const allowedLatin = new Set(['cardwright', 'Markdown', 'MDX', 'PNG', 'JPEG', 'WebP', 'PDF', 'ZIP', 'API', 'cURL', 'JSON', 'ID', 'English', 'px', 'Ctrl', 'Enter', 'IG', 'RED', 'A4',
  'JavaScript', 'front', 'matter', 'Noto', 'Sans', 'Serif', 'SC', 'LXGW', 'WenKai', 'ZCOOL', 'KuaiLe', 'JetBrains', 'Mono', 'Comic', 'Neue', 'CARDWRIGHT_API_KEY', 'data', 'api', 'keys', 'txt', 'https', 'name', 'cw_']);

/** Visible texts and labels of the page in Latin words, outside code, the editor, the preview and the theme names (which are data). */
function latinWords(page: Page): Promise<string[]> {
  // A string, not a function: the test's TypeScript loader would add helpers the page does not have.
  return page.evaluate(`(() => {
    const found = [];
    const skipped = (element) => !!element?.closest('code, kbd, pre, textarea, iframe, script, style, noscript, .theme-name, #mode-theme-name, .theme-id, .mode-chips, .swatches, [hidden]');
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    for (let node = walker.currentNode; node; node = walker.nextNode()) {
      if (node.nodeType === Node.ELEMENT_NODE) {
        if (skipped(node)) continue;
        for (const name of ['placeholder', 'aria-label', 'title', 'alt']) {
          const value = node.getAttribute(name);
          if (value) found.push(value);
        }
      } else if (!skipped(node.parentElement) && node.nodeValue.trim()) {
        found.push(node.nodeValue);
      }
    }
    found.push(document.title);
    return found.flatMap((text) => text.match(/[A-Za-z_]{2,}/g) ?? []);
  })()`);
}

describe('web page for creators', () => {
  let service: RunningService;
  let browser: Browser;
  before(async () => {
    service = await startService();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('speaks Chinese to a zh-CN browser, with no English left, and switches and remembers the language', async () => {
    const { page, problems, context, close } = await openPage(browser, `${service.baseUrl}/`, undefined, 'zh-CN');
    try {
      await page.waitForFunction(() => document.querySelectorAll('#theme-list .theme-option').length > 0 && document.getElementById('preview-status')!.textContent !== '');
      assert.equal(await page.locator('#generate .label').innerText(), '生成图片');
      assert.equal(await page.locator('#theme-title').innerText(), '主题');
      assert.equal(await page.locator('#creator-title').innerText(), '封面与署名');
      assert.match(await page.locator('#preview-status').innerText(), /张卡片/);
      assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
      // A message the page makes itself (no key) is Chinese too.
      await page.click('#generate');
      assert.match(await page.locator('#api-key-error').innerText(), /请输入 API 密钥/);
      const untranslated = (await latinWords(page)).filter((word) => !allowedLatin.has(word));
      assert.deepEqual([...new Set(untranslated)], []);

      await page.selectOption('#language', 'en');
      await page.waitForFunction(() => document.querySelector('#generate .label')?.textContent === 'Generate images');
      const again = await context.newPage();
      await again.goto(`${service.baseUrl}/`);
      await again.waitForFunction(() => document.querySelector('#theme-title')?.textContent === 'Theme');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('writes the front matter from the cover and signature panel and shows the cover and signature live', async () => {
    const { page, problems, close } = await openPage(browser, `${service.baseUrl}/`);
    try {
      await page.fill('#markdown', '# Day one\n\nWrite it down. #notes');
      await page.click('label:has(#fm-cover)');
      await page.click('label:has(#fm-signature)');
      await page.fill('#fm-title', 'Seven days of cards');
      await page.fill('#fm-author', 'Lin');
      await page.fill('#fm-handle', '@lin');
      await page.fill('#fm-tags', 'cards, notes');
      const markdown = await page.inputValue('#markdown');
      assert.equal(markdown, '---\ncover: true\nsignature: true\ntitle: "Seven days of cards"\nauthor: "Lin"\nhandle: "@lin"\ntags: ["cards","notes"]\n---\n# Day one\n\nWrite it down. #notes');
      await page.waitForFunction(() => {
        const cards = (document.getElementById('preview-frame') as HTMLIFrameElement).contentDocument?.querySelectorAll('#cards > .card');
        return cards?.length === 2 && cards[0]!.classList.contains('cover-card') && cards[0]!.textContent!.includes('Seven days of cards') && cards[1]!.querySelector('.card-footer .signature')?.textContent === 'Lin@lin' && !!cards[1]!.querySelector('.hashtag');
      });
      // Typing in the editor shows in the panel; unchecking removes the line, and the block with its last line.
      await page.fill('#markdown', '---\ntitle: Edited\ncover: true\n---\n# Day one');
      assert.equal(await page.inputValue('#fm-title'), 'Edited');
      assert.equal(await page.isChecked('#fm-signature'), false);
      await page.click('label:has(#fm-cover)');
      await page.fill('#fm-title', '');
      assert.equal(await page.inputValue('#markdown'), '# Day one');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('sets the watermark from the creator panel: in the preview, the request and its cURL command', async () => {
    const { page, problems, close } = await openPage(browser, `${service.baseUrl}/`);
    try {
      await page.fill('#markdown', '# Day one\n\nWrite it down.');
      await page.fill('#watermark-text', '@lin');
      await page.waitForFunction(() => (document.getElementById('preview-frame') as HTMLIFrameElement).contentDocument?.querySelector('#cards > .card .card-content > .card-watermark')?.textContent === '@lin');
      assert.match(await page.locator('#curl').innerText(), /"watermark": \{\s*"text": "@lin"\s*\}/);
      await page.selectOption('#watermark-position', 'tiled');
      // Tiled is fainter by default: the slider shows the service's default until it is moved.
      assert.equal(await page.inputValue('#watermark-opacity'), '0.15');
      await page.waitForFunction(() => !!(document.getElementById('preview-frame') as HTMLIFrameElement).contentDocument?.querySelector('#cards > .card .card-content > .card-watermark.watermark-tiled svg'));
      await page.locator('#watermark-opacity').fill('0.5');
      assert.match(await page.locator('#curl').innerText(), /"watermark": \{\s*"text": "@lin",\s*"position": "tiled",\s*"opacity": 0.5\s*\}/);
      // Emptied, it is no longer sent.
      await page.fill('#watermark-text', '');
      assert.doesNotMatch(await page.locator('#curl').innerText(), /watermark/);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
});
