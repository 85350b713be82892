// `npm run bench:profile`: where one card's time goes inside Chromium, for each card of the bench's
// representative set, on a warm render page exactly as the service uses it (render-page.ts).
// It measures the stages the renderer runs (swap the content and lay it out, capture over CDP) and,
// with a Chrome trace of the same steps, what Chromium does in them (style, layout, paint, raster,
// image encoding); then it measures alternatives to the capture: JPEG, the PNG encoder of libvips
// (sharp) on the same pixels, and one capture of several stacked cards sliced and encoded by
// libvips in parallel threads. Prints a few lines per card; asserts nothing.
//
// Knob: PROFILE_ROUNDS (timed repetitions per measurement, default 8).
import pino from 'pino';
import sharp from 'sharp';
import { createCards, normalizeRequest } from '../src/cards/index.js';
import { BrowserInstance } from '../src/cards/render/browser-instance.js';
import { RenderPage, type CardBox } from '../src/cards/render/render-page.js';
import { loadConfig } from '../src/config.js';
import { representativeSet } from './lib/documents.js';
import { median } from './lib/stats.js';

const rounds = Number(process.env.PROFILE_ROUNDS ?? 8);
const log = pino({ level: 'warn' });

/** Median wall time of `task` over `rounds` runs, in ms. */
async function timed(task: () => Promise<unknown>): Promise<number> {
  const timings: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await task();
    timings.push(performance.now() - started);
  }
  return median(timings);
}

interface TraceEvent {
  name: string;
  ph: string;
  dur?: number;
}

/** Chromium's own time per trace event name (complete events, in ms), busiest first. */
/** Records Chromium's trace of `categories` over `steps` (the Tracing domain, events reported as they come). */
async function traced(browser: BrowserInstance, categories: string[], steps: () => Promise<void>): Promise<TraceEvent[]> {
  const { root } = browser.connection;
  const traceEvents: TraceEvent[] = [];
  const offData = root.on('Tracing.dataCollected', ({ value }) => traceEvents.push(...(value as unknown as TraceEvent[])));
  await root.send('Tracing.start', { traceConfig: { includedCategories: categories }, transferMode: 'ReportEvents' });
  await steps();
  const complete = root.once('Tracing.tracingComplete');
  await root.send('Tracing.end');
  await complete;
  offData();
  return traceEvents;
}

function traceTotals(traceEvents: TraceEvent[]): Array<[string, number]> {
  const totals = new Map<string, number>();
  for (const event of traceEvents) {
    if (event.ph !== 'X' || !event.dur) continue;
    totals.set(event.name, (totals.get(event.name) ?? 0) + event.dur / 1000);
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

/** The trace events that answer "style, layout, paint, raster, encode". */
const stagesOfInterest: Record<string, RegExp> = {
  style: /^(UpdateLayoutTree|RecalculateStyles|ParseAuthorStyleSheet)$/,
  layout: /^(Layout|UpdateLayerTree)$/,
  paint: /^(Paint|PaintImage|PrePaint|Commit)$/,
  raster: /^(RasterTask|ImageDecodeTask|TileManager::RunTasks)$/,
  encode: /(Encode|PNG|Jpeg|Screenshot)/i,
};

async function main(): Promise<void> {
  const config = loadConfig();
  const cards = createCards({ settings: config, log });
  const browser = await BrowserInstance.launch(config.chromiumPath, 1, log);
  const page = await RenderPage.open(browser.connection, cards.shell, { warmUp: 'all' });
  try {
    for (const document of representativeSet) {
      const preview = await cards.preview(normalizeRequest({ markdown: document.markdown(0) }), AbortSignal.timeout(60_000));
      const card = preview.cards[0];
      if (!card || !('html' in card)) throw new Error('a noSplit preview is one card of markup');
      const html = card.html;
      let box: CardBox | undefined;
      const layoutMs = await timed(async () => ([box] = await page.layout(html)));
      if (!box) throw new Error('no card was laid out');
      const png = await page.capture(box, { scale: 2, format: 'png' });
      const captureMs = await timed(() => page.capture(box!, { scale: 2, format: 'png' }));
      const jpegMs = await timed(() => page.capture(box!, { scale: 2, format: 'jpeg' }));

      // The same pixels through libvips: decoded once, then encoded as the service's PNGs would be.
      const raw = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      const sharpEncode = (compressionLevel: number) => () =>
        sharp(raw.data, { raw: { width: raw.info.width, height: raw.info.height, channels: raw.info.channels } }).png({ compressionLevel }).toBuffer();
      const sharpFastMs = await timed(sharpEncode(1));
      const sharpDefaultMs = await timed(sharpEncode(6));

      // One trace over a layout and a capture, to split them into Chromium's own stages.
      const categories = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'cc', 'benchmark', 'blink'];
      const totals = traceTotals(
        await traced(browser, categories, async () => {
          await page.layout(html);
          await page.capture(box!, { scale: 2, format: 'png' });
        }),
      );
      const stageTotals = Object.entries(stagesOfInterest).map(([stage, pattern]) => {
        const ms = totals.filter(([name]) => pattern.test(name)).reduce((sum, [, value]) => sum + value, 0);
        return `${stage} ${ms.toFixed(1)}`;
      });

      console.log(`\n${document.name} (${png.length >> 10} KB PNG, 880×${raw.info.height} px): ${document.renders}`);
      console.log(`  swap + style + layout + fonts (page.layout)     ${layoutMs.toFixed(1)} ms`);
      console.log(`  capture, PNG, optimizeForSpeed (the service)   ${captureMs.toFixed(1)} ms`);
      console.log(`  capture, JPEG q90                              ${jpegMs.toFixed(1)} ms`);
      console.log(`  libvips PNG encode of the same pixels, level 1 / 6: ${sharpFastMs.toFixed(1)} / ${sharpDefaultMs.toFixed(1)} ms`);
      console.log(`  trace of one layout + capture (ms of Chromium threads): ${stageTotals.join(', ')}`);
      console.log(`  busiest trace events: ${totals.slice(0, 8).map(([name, ms]) => `${name} ${ms.toFixed(1)}`).join(', ')}`);
    }

    // Several cards of one request: one capture per card (the service) against one capture of all
    // of them stacked, sliced and encoded by libvips in parallel threads.
    const stacked = representativeSet.map((document) => document.markdown(1));
    const htmls: string[] = [];
    for (const markdown of stacked) {
      const preview = await cards.preview(normalizeRequest({ markdown }), AbortSignal.timeout(60_000));
      const card = preview.cards[0];
      if (card && 'html' in card) htmls.push(card.html);
    }
    const boxes = await page.layout(htmls.join(''));
    const perCardMs = await timed(async () => {
      for (const box of boxes) await page.capture(box, { scale: 2, format: 'png' });
    });
    const whole: CardBox = { x: 0, y: boxes[0]!.y, width: Math.max(...boxes.map((b) => b.x + b.width)), height: boxes.at(-1)!.y + boxes.at(-1)!.height - boxes[0]!.y };
    const oneCaptureMs = await timed(async () => {
      const all = await page.capture(whole, { scale: 2, format: 'png' });
      const decoded = sharp(all);
      await Promise.all(
        boxes.map((box) =>
          decoded
            .clone()
            .extract({ left: Math.round(box.x * 2), top: Math.round((box.y - whole.y) * 2), width: Math.round(box.width * 2), height: Math.round(box.height * 2) })
            .png({ compressionLevel: 1 })
            .toBuffer(),
        ),
      );
    });
    const rawCaptureMs = await timed(() => page.capture(whole, { scale: 2, format: 'png' }));
    console.log(`\n${boxes.length} stacked cards of one request (the set above):`);
    console.log(`  one CDP capture per card (the service)                     ${perCardMs.toFixed(1)} ms`);
    console.log(`  one capture of all, sliced + PNG-encoded by libvips        ${oneCaptureMs.toFixed(1)} ms (the capture alone ${rawCaptureMs.toFixed(1)} ms)`);
  } finally {
    await page.close();
    await browser.close();
    await cards.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
