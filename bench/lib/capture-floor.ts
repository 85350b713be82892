// Chromium's capture floor: what capturing a card of a given size costs when the card holds nothing
// but white, on warm pages of the service's own browser (the same binary, launch flags, DevTools
// path and PNG options as src/cards/render/render-page.ts). Drawing the frame, reading it back and
// encoding the PNG grow with the card's pixels, not with what it shows, so no renderer that draws
// its cards with Chromium and captures them can do better per card than this: it bounds the ratios
// the benchmark's targets ask for.
import pino from 'pino';
import type { CDPSession } from 'playwright-core';
import { BrowserInstance } from '../../src/cards/render/browser-instance.js';
import { loadConfig } from '../../src/config.js';
import { treeCpuSeconds } from './memory.js';
import { median } from './stats.js';

export interface CaptureFloor {
  /** Median wall time of one capture over every height, in turn, on one page. */
  medianMs: number;
  /** Chromium's CPU time per capture in that sequential phase (all its processes), in ms. */
  chromiumCpuMsPerCard: number;
  /** Captures a second with one loop per page, as the service's render pages take one request each. */
  cardsPerSecond: number;
}

const cardWidth = 440;
const deviceScale = 2;

/** CPU seconds the browser and all its processes have used so far. */
function chromiumCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const { service, descendants } = treeCpuSeconds(pid);
  return service + descendants;
}

/** Captures a white card `height` CSS px tall at the service's scale, as render-page.ts does. */
async function captureWhiteCard(session: CDPSession, height: number): Promise<Buffer> {
  await session.send('Emulation.setDeviceMetricsOverride', { width: cardWidth, height, deviceScaleFactor: deviceScale, mobile: false });
  await session.send('Runtime.evaluate', { expression: `document.getElementById('card').style.height = '${height}px'` });
  const { data } = await session.send('Page.captureScreenshot', {
    format: 'png',
    clip: { x: 0, y: 0, width: cardWidth, height, scale: 1 },
    optimizeForSpeed: true,
  });
  return Buffer.from(data, 'base64');
}

/**
 * `heights`: the CSS px heights of the cards to compare with (each captured `rounds` times, in
 * turn); `pages`: render pages in the throughput phase, which lasts `seconds`.
 */
export async function measureCaptureFloor(heights: number[], { rounds, pages, seconds }: { rounds: number; pages: number; seconds: number }): Promise<CaptureFloor> {
  const browser = await BrowserInstance.launch(loadConfig().chromiumPath, 1, pino({ level: 'warn' }));
  try {
    const sessions: CDPSession[] = [];
    for (let i = 0; i < pages; i++) {
      // A context of its own per page, with JavaScript off, as the service's render pages.
      const context = await browser.browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.setContent(`<body style="margin:0;background:#fff"><div id="card" style="width:${cardWidth}px;background:#fff"></div></body>`);
      sessions.push(await context.newCDPSession(page));
    }
    const first = sessions[0]!;
    for (const height of heights) await captureWhiteCard(first, height);

    const timings: number[] = [];
    const cpuBefore = chromiumCpuSeconds(browser.pid);
    for (let round = 0; round < rounds; round++) {
      for (const height of heights) {
        const started = performance.now();
        await captureWhiteCard(first, height);
        timings.push(performance.now() - started);
      }
    }
    const cpuAfter = chromiumCpuSeconds(browser.pid);

    let captures = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    await Promise.all(
      sessions.map(async (session, index) => {
        for (let i = index; performance.now() < deadline; i++, captures++) await captureWhiteCard(session, heights[i % heights.length]!);
      }),
    );
    return {
      medianMs: median(timings),
      chromiumCpuMsPerCard: ((cpuAfter - cpuBefore) * 1000) / timings.length,
      cardsPerSecond: captures / ((performance.now() - started) / 1000),
    };
  } finally {
    await browser.close();
  }
}
