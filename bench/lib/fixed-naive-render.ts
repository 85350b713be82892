// The fixed baseline: what someone would write in an afternoon to turn Markdown into a card
// image, and the same from one build of cardwright to the next. It launches Chromium per request,
// renders the Markdown with markdown-it into one plain stylesheet on the system's fonts, and
// screenshots the card at 440 px wide, 2×. Nothing of the service is used but the path to Chromium,
// so it does not slow down when the service's own shell or pipeline grows (naive-render.ts does:
// it renders the service's markup in the service's shell, and is kept as a second reference).
import MarkdownIt from 'markdown-it';
import { chromium } from 'playwright-core';
import { findChromium } from '../../src/cards/render/chromium-executable.js';
import { loadConfig } from '../../src/config.js';
import type { NaiveRenderer } from './naive-render.js';

const plainStylesheet = `
  body { margin: 0; background: #eee; }
  .card { width: 440px; min-height: 586px; box-sizing: border-box; padding: 32px 28px; background: #fff;
    font: 16px/1.7 system-ui, sans-serif; color: #222; }
  h1, h2, h3 { line-height: 1.3; margin: 0.8em 0 0.4em; }
  pre { background: #f6f8fa; padding: 12px; border-radius: 8px; white-space: pre-wrap; font: 13px/1.5 monospace; }
  code { font-family: monospace; }
  table { border-collapse: collapse; width: 100%; }
  th, td { border: 1px solid #ddd; padding: 4px 8px; }
  blockquote { margin: 0; padding-left: 12px; border-left: 4px solid #ccc; color: #555; }
  img { max-width: 100%; }
`;

export async function fixedNaiveRenderer(): Promise<NaiveRenderer> {
  const markdownIt = new MarkdownIt({ html: false, linkify: true });
  const executable = await findChromium(loadConfig().chromiumPath);
  const render = async (markdown: string) => {
    const html = `<!doctype html><html><head><meta charset="utf-8"><style>${plainStylesheet}</style></head><body><div class="card">${markdownIt.render(markdown)}</div></body></html>`;
    const browser = await chromium.launch({ executablePath: executable.path, args: ['--disable-gpu', '--no-first-run', '--disable-background-networking'] });
    try {
      const page = await browser.newPage({ deviceScaleFactor: 2, viewport: { width: 440, height: 586 } });
      await page.setContent(html, { waitUntil: 'load' });
      await page.evaluate(() => document.fonts.ready);
      return await page.locator('.card').screenshot({ type: 'png' });
    } finally {
      await browser.close();
    }
  };
  return { render, close: async () => {} };
}
