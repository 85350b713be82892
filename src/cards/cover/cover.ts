// The cover operation: a title and keywords → `count` cover designs in the chosen theme, rendered
// by the same warm pages as the cards (one fixed-size card each) and stored like them.
import { renderCards, type RenderedImage } from '../render/render-cards.js';
import type { PipelineParts, Rendered, StoreParts } from '../pipeline.js';
import type { CoverRequest } from '../request/cover-schema.js';
import { storeAll, type StoredImage } from '../storage/store-all.js';
import { coverDesigns } from './cover-designs.js';
import { fitCover, smallestDesignFit } from './fit-cover.js';

/** Renders the covers of one request, one image per design, without storing them. */
export async function renderCover(parts: PipelineParts, request: CoverRequest, signal: AbortSignal): Promise<Rendered<RenderedImage>> {
  const { theme, mode, warnings } = parts.themes.resolve(request.theme, request.themeMode);
  const designs = coverDesigns(request);
  // The card every design is drawn in: exactly width × height, whatever its title.
  const card = { theme, mode, width: request.width, height: request.height, scale: request.scale, background: request.background };
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
  return { images, complete: true, warnings };
}

/** Renders the covers and stores them; on any failure nothing stays stored. */
export async function generateCover(parts: PipelineParts & StoreParts, request: CoverRequest, signal: AbortSignal): Promise<Rendered<StoredImage>> {
  const { images, complete, warnings } = await renderCover(parts, request, signal);
  return { images: await storeAll(parts, images, signal), complete, warnings };
}
