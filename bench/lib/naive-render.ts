// The baseline the benchmark compares against: what a straightforward implementation does, i.e.
// launch a browser per request, open a page, set the full document, screenshot the card, close.
// It renders exactly the card HTML the service renders: the card pipeline's preview() gives the
// card markup, and its shell document the fonts, base CSS and theme CSS.
import fs from 'node:fs';
import pino from 'pino';
import { chromium } from 'playwright-core';
import { createCards, normalizeRequest } from '../../src/cards/index.js';
import { findChromium } from '../../src/cards/render/chromium-executable.js';
import { shellOrigin } from '../../src/cards/render/shell-document.js';
import { fontFaceCss, resolveFontFile } from '../../src/cards/themes/fonts.js';
import { loadConfig } from '../../src/config.js';

export interface NaiveRenderer {
  render(markdown: string): Promise<Buffer>;
  /** Closes what preview() opened (the previews' browser fits tables), so the benchmark can exit. */
  close(): Promise<void>;
}

export async function naiveRenderer(): Promise<NaiveRenderer> {
  const config = loadConfig();
  // Only preview() of a single card is used: its markup, with tables fitted in the previews' browser.
  const cards = createCards({ settings: config, log: pino({ level: 'warn' }) });
  const executable = await findChromium(config.chromiumPath);

  const render = async (markdown: string) => {
    const { cards: [card] } = await cards.preview(normalizeRequest({ markdown }), AbortSignal.timeout(60_000));
    if (!card || !('html' in card)) throw new Error('a noSplit preview is one card of markup');
    // The service's shell with every bundled face, as its render pages held it before they declared faces on demand.
    const documentHtml = cards.shell.html.replace('</head>', `<style>${fontFaceCss()}</style></head>`).replace('<div id="cards"></div>', `<div id="cards">${card.html}</div>`);
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
  return { render, close: () => cards.close() };
}
