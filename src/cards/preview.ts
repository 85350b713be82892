// The live preview of the web page: the cards of a request as the editor shows them, built by
// the same stages as the images (theme, Markdown → sanitized HTML, card markup), so the page shows
// exactly what Generate will render: a noSplit card as its markup (tables fitted by the browser
// first, between the front matter's cover and closing card when it asks for them), split cards and
// an overHiddenMode card as the images Generate captures.
import { fitTables, hasTables } from './render/fit-tables.js';
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
  const single = request.splitMode === 'noSplit' || request.weChatMode;
  // overHiddenMode ends the card at its last whole line and marks the cut (truncate-overflow.ts),
  // which only the browser that measured the lines can do: shown as the image Generate renders.
  if (single && !(request.overHiddenMode && !request.weChatMode)) {
    // The markup renderCards lays out and captures for a noSplit request, with the tables fitted
    // to the card as Generate fits them (fit-tables.ts writes their sizes into the HTML).
    const contentHtml = hasTables(html) ? await parts.renderer.run(signal, (page) => fitTables(page, { ...request, theme, mode, contentHtml: html })) : html;
    const renderRequest = { ...request, theme, mode, creator, contentHtml };
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
