// Chromium's capture floor: what capturing a card of a given size costs when the card holds nothing
// but white, on warm render pages of the service's own browser, captured by the service's own
// RenderPage.capture (src/cards/render/render-page.ts). Drawing the frame, reading it back and
// encoding the PNG grow with the card's pixels, not with what it shows, so no renderer that draws
// its cards with Chromium and captures them can do better per card than this: it bounds the ratios
// the benchmark's targets ask for.
import pino from 'pino';
import { BrowserInstance } from '../../src/cards/render/browser-instance.js';
import { RenderPage } from '../../src/cards/render/render-page.js';
import { buildShellDocument } from '../../src/cards/render/shell-document.js';
import { loadThemes } from '../../src/cards/themes/registry.js';
import { loadConfig } from '../../src/config.js';
import { treeCpuSeconds } from './memory.js';
import { median } from './stats.js';

export interface CaptureFloor {
  /** Median wall time of one capture over every height, in turn, on one page. */
  medianMs: number;
  /** Chromium's CPU time per capture in that sequential phase (all its processes), in ms. */
  chromiumCpuMsPerCard: number;
  /**
   * Captures a second with one loop per page, as the service's render pages take one request each:
   * all the cards laid out on each page once, captured in turn.
   */
  cardsPerSecond: number;
}

/** CPU seconds the browser and all its processes have used so far. */
function chromiumCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const { service, descendants } = treeCpuSeconds(pid);
  return service + descendants;
}

/** A white card 440 CSS px wide and `height` tall. */
const whiteCard = (height: number) => `<div style="width:440px;height:${height}px;background:#fff"></div>`;

/**
 * `heights`: the CSS px heights of the cards to compare with (each captured `rounds` times, in
 * turn, at scale 2); `pages`: render pages in the throughput phase, which lasts `seconds`.
 */
export async function measureCaptureFloor(heights: number[], { rounds, pages, seconds }: { rounds: number; pages: number; seconds: number }): Promise<CaptureFloor> {
  const config = loadConfig();
  const log = pino({ level: 'warn' });
  // The service's shell, without a service around it (see page-opening.ts).
  const shell = buildShellDocument(loadThemes(config.themesDir));
  const browser = await BrowserInstance.launch(config.chromiumPath, 1, log);
  const renderPages: RenderPage[] = [];
  // Each card alone on its page, as a noSplit request lays it out: only the capture is timed.
  const capture = async (page: RenderPage, height: number) => {
    const [box] = await page.layout(whiteCard(height));
    const cpu = chromiumCpuSeconds(browser.pid);
    const started = performance.now();
    await page.capture(box!, { scale: 2, format: 'png' });
    return { ms: performance.now() - started, cpuSeconds: chromiumCpuSeconds(browser.pid) - cpu };
  };
  try {
    for (let i = 0; i < pages; i++) renderPages.push(await RenderPage.open(browser.connection, shell, { warmUp: 'none' }));
    const first = renderPages[0]!;
    for (const height of heights) await capture(first, height);

    const timings: number[] = [];
    let cpuSeconds = 0;
    for (let round = 0; round < rounds; round++) {
      for (const height of heights) {
        const measured = await capture(first, height);
        timings.push(measured.ms);
        cpuSeconds += measured.cpuSeconds;
      }
    }

    // Every card on each page at once, captured in turn, as a split request's cards are.
    let captures = 0;
    const stacked = await Promise.all(renderPages.map((page) => page.layout(heights.map(whiteCard).join(''))));
    const started = performance.now();
    const deadline = started + seconds * 1000;
    await Promise.all(
      renderPages.map(async (page, index) => {
        const boxes = stacked[index]!;
        for (let i = index; performance.now() < deadline; i++, captures++) await page.capture(boxes[i % boxes.length]!, { scale: 2, format: 'png' });
      }),
    );
    return {
      medianMs: median(timings),
      chromiumCpuMsPerCard: (cpuSeconds * 1000) / timings.length,
      cardsPerSecond: captures / ((performance.now() - started) / 1000),
    };
  } finally {
    for (const page of renderPages) await page.close();
    await browser.close();
  }
}
