// How long a render page takes to open on a warm browser, as the pool opens one for a waiting
// request (the shell loaded, no warm-up card): what every page the service opens costs at least.
import pino from 'pino';
import { BrowserInstance } from '../../src/cards/render/browser-instance.js';
import { RenderPage } from '../../src/cards/render/render-page.js';
import { buildShellDocument } from '../../src/cards/render/shell-document.js';
import { loadThemes } from '../../src/cards/themes/registry.js';
import { loadConfig } from '../../src/config.js';

export async function pageOpeningMs(openings: number): Promise<number[]> {
  const config = loadConfig();
  const log = pino({ level: 'warn' });
  // The render pages' document as the service builds it, without the rest of a service (its
  // Markdown workers would load the pipeline meanwhile, on the CPU being measured).
  const shell = buildShellDocument(loadThemes(config.themesDir));
  const browser = await BrowserInstance.launch(config.chromiumPath, 1, log);
  const timings: number[] = [];
  try {
    // The first opening also starts the browser's renderer machinery: not counted.
    await (await RenderPage.open(browser.connection, shell, { warmUp: 'none' })).close();
    for (let i = 0; i < openings; i++) {
      const started = performance.now();
      const page = await RenderPage.open(browser.connection, shell, { warmUp: 'none' });
      timings.push(performance.now() - started);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return timings;
}
