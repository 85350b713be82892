// The baseline the benchmark compares against: what a straightforward implementation does, i.e.
// launch a browser per request, open a page, set the full document, screenshot the card, close.
// It renders exactly the card HTML the service renders (same shell document, fonts and theme).
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { renderMarkdown } from '../../src/cards/markdown/render-markdown.js';
import { cardMarkup } from '../../src/cards/render/card-markup.js';
import { findChromium } from '../../src/cards/render/chromium-executable.js';
import { buildShellDocument, shellOrigin } from '../../src/cards/render/shell-document.js';
import { resolveFontFile } from '../../src/cards/themes/fonts.js';
import { loadThemes } from '../../src/cards/themes/registry.js';

export async function naiveRenderer(): Promise<(markdown: string) => Promise<Buffer>> {
  const themes = loadThemes();
  const theme = themes.get('plain-notes')!;
  const shell = buildShellDocument(themes);
  const executable = await findChromium(process.env.CHROMIUM_PATH);

  return async (markdown) => {
    const { html } = await renderMarkdown(markdown);
    const card = cardMarkup({ theme, mode: theme.defaultMode, width: 440, height: 586, fixedHeight: false, contentHtml: html });
    const documentHtml = shell.replace('<div id="cards"></div>', `<div id="cards">${card}</div>`);
    const browser = await chromium.launch({ executablePath: executable.path, args: ['--disable-gpu', '--no-first-run', '--disable-background-networking'] });
    try {
      const context = await browser.newContext({ deviceScaleFactor: 2, viewport: { width: 440, height: 586 } });
      await context.route('**/*', async (route) => {
        const url = new URL(route.request().url());
        if (url.origin === shellOrigin && url.pathname === '/') return route.fulfill({ contentType: 'text/html', body: documentHtml });
        const font = url.origin === shellOrigin ? resolveFontFile(url.pathname) : undefined;
        return font ? route.fulfill({ contentType: 'font/woff2', body: fs.readFileSync(font) }) : route.abort();
      });
      const page = await context.newPage();
      await page.goto(`${shellOrigin}/`);
      await page.evaluate(() => document.fonts.ready);
      return await page.locator('.card').screenshot({ type: 'png' });
    } finally {
      await browser.close();
    }
  };
}
