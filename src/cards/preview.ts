// The live preview of the web page: the cards of a request as the editor shows them, built by
// the same stages as the images (theme, Markdown → sanitized HTML, card markup), so the page shows
// exactly what Generate will render.
import { creatorCardsMarkup, renderCards, singleCardMarkup } from './render/render-cards.js';
import { prepareContent, type PipelineParts } from './pipeline.js';
import type { CardRequest } from './request/schema.js';

/**
 * One card of the preview: its markup, or (when only the browser can paginate) its image, a
 * data: URL drawn `width`×`height` CSS px (the image itself has up to twice that for sharp screens).
 */
export type PreviewCard = { html: string } | { image: string; width: number; height: number };

export interface Preview {
  cards: PreviewCard[];
  theme: string;
  themeMode: string | null;
  width: number;
  height: number;
  /** As in the generate answer: what was not applied as asked. */
  warnings: string[];
}

/** Split previews are captured at the request's scale, but no finer than a 2× screen shows. */
const maxPreviewScale = 2;

export async function previewRequest(parts: PipelineParts, request: CardRequest, signal: AbortSignal): Promise<Preview> {
  const { theme, mode, warnings, html, creator } = await prepareContent(parts, request, signal);
  let cards: PreviewCard[];
  // weChatMode is one card as tall as its content whatever the split mode: markup, like noSplit.
  if (request.splitMode === 'noSplit' || request.weChatMode) {
    // The markup renderCards lays out and captures for a noSplit request, built without the browser,
    // between the front matter's cover and closing card when it asks for them.
    const renderRequest = { ...request, theme, mode, creator, contentHtml: html };
    const { cover, end } = creatorCardsMarkup(renderRequest);
    cards = [cover, singleCardMarkup(renderRequest), end].filter((markup) => markup !== '').map((markup) => ({ html: markup }));
  } else {
    // Split cards exist only after the browser has measured the content: show what it renders.
    const scale = Math.min(request.scale, maxPreviewScale);
    const images = await parts.renderer.run(signal, (page) =>
      renderCards(page, { ...request, theme, mode, creator, scale, format: 'webp', contentHtml: html }),
    );
    cards = images.map((image) => ({
      image: `data:image/webp;base64,${image.data.toString('base64')}`,
      width: image.width / scale,
      height: image.height / scale,
    }));
  }
  return { cards, theme: theme.id, themeMode: mode ?? null, width: request.width, height: request.height, warnings };
}
