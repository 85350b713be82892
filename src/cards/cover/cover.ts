// The cover operation: a title and keywords → `count` cover designs in the chosen theme, rendered
// by the same warm pages as the cards (one fixed-size card each) and stored like them.
import { CardError } from '../errors.js';
import { longImageBudget } from '../render/long-image.js';
import { renderCards, type RenderedImage } from '../render/render-cards.js';
import { defaultRenderLimits, millions, type RenderLimits } from '../render/render-limits.js';
import type { PipelineParts, Rendered, StoreParts } from '../pipeline.js';
import type { CoverRequest } from '../request/cover-schema.js';
import { layoutFontScale } from '../request/resolve.js';
import { storeAll, type StoredImage } from '../storage/store-all.js';
import { coverDesigns } from './cover-designs.js';
import { withWatermarkImage } from '../remote-pictures.js';
import { fitCover, smallestDesignFit } from './fit-cover.js';
import type { Theme } from '../themes/theme-file.js';

/**
 * The designs of a cover request and the card each is drawn in: exactly width × height, whatever
 * its title. A cover smaller than the themes are drawn for is designed and laid out at that
 * smallest size, then drawn scaled down, as cards are (request/resolve.ts), so its title keeps a
 * readable share of it.
 */
export function coverLayout(request: CoverRequest, theme: Theme, mode: string | undefined) {
  const fontScale = layoutFontScale({ width: request.width, height: request.height, fontScale: 1 });
  const designs = coverDesigns({ ...request, width: request.width / fontScale, height: request.height / fontScale });
  const card = { theme, mode, width: request.width, height: request.height, scale: request.scale, fontScale, background: request.background, watermark: request.watermark };
  return { designs, card };
}

/** Renders the covers of one request, one image per design, without storing them. */
export async function renderCover(parts: PipelineParts, request: CoverRequest, signal: AbortSignal): Promise<Rendered<RenderedImage>> {
  const { theme, mode, warnings } = parts.themes.resolve(request.theme, request.themeMode);
  checkCoverSize(request, parts.renderLimits ?? defaultRenderLimits);
  const mark = await withWatermarkImage(parts, request.watermark, { signal, lane: 'requests' });
  const { designs, card } = coverLayout({ ...request, watermark: mark.watermark }, theme, mode);
  const images = await parts.renderer.run(signal, async (page) => {
    const rendered: RenderedImage[] = [];
    for (const design of designs) {
      signal.throwIfAborted();
      const contentHtml = await fitCover(page, { ...card, html: design.html, smallest: smallestDesignFit });
      const [image] = await renderCards(page, { ...card, format: request.format, splitMode: 'noSplit', overHiddenMode: true, contentHtml }, parts.renderLimits);
      rendered.push(image!);
    }
    return rendered;
  });
  return { images, complete: mark.failures.length === 0, warnings: [...warnings, ...mark.warnings] };
}

/** Renders the covers and stores them; on any failure nothing stays stored. */
export async function generateCover(parts: PipelineParts & StoreParts, request: CoverRequest, signal: AbortSignal): Promise<Rendered<StoredImage>> {
  const { images, complete, warnings } = await renderCover(parts, request, signal);
  return { images: await storeAll(parts, images, signal), complete, warnings };
}

/**
 * Refuses covers larger than one image, or one request, may be, before any is drawn: with advice
 * that applies to covers, which are one fixed-size card each (the cards' own refusals speak of
 * split modes and Markdown, which a cover does not have).
 */
function checkCoverSize(request: CoverRequest, limits: RenderLimits): void {
  const pixels = Math.round(request.width * request.scale) * Math.round(request.height * request.scale);
  const size = `${request.width}×${request.height} at scale ${request.scale}`;
  if (pixels > longImageBudget.maxPixels) {
    throw new CardError(
      'content_too_large',
      `A cover of ${size} would have ${millions(pixels)} million device pixels; one image may have at most ${millions(longImageBudget.maxPixels)} million. ` +
        'Use a smaller width, height or scale.',
    );
  }
  const total = pixels * request.count;
  if (total > limits.maxPixels) {
    throw new CardError(
      'content_too_large',
      `${request.count} covers of ${size} would total ${millions(total)} million device pixels; the limit is ${millions(limits.maxPixels)} million per request. ` +
        'Use a smaller count, width, height or scale.',
    );
  }
}
