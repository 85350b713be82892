// autoSplit and hrSplit: turns one document into cards of exactly width × height (docs/api.md#split-modes).
// The measuring, break choosing and card building all happen inside the render page in a single
// evaluation (the modules of ./paginate/, bundled by pagination-script.ts), so a request pays for
// one layout of its document, not a trial render per card.
import { cardGeometry, cardMarkup } from './card-markup.js';
import { signatureHtml } from './creator-cards.js';
import type { PaginationInput, PaginationResult } from './paginate/types.js';
import { bundleGlobalName, paginationScript } from './pagination-script.js';
import type { RenderPage } from './render-page.js';
import type { CardRenderRequest } from './render-cards.js';

export type { PaginationInput, PaginationResult } from './paginate/types.js';

/** The most cards one request may produce (docs/api.md#limits). */
export const maxCardsPerRequest = 50;

/** What pagination reads of a render request: the card's look and size, and the document. */
export type PaginationRequest = Pick<
  CardRenderRequest,
  'theme' | 'mode' | 'width' | 'height' | 'scale' | 'fontScale' | 'overHiddenMode' | 'background' | 'contentHtml' | 'fontFamily' | 'creator' | 'watermark'
> & { splitMode: 'autoSplit' | 'hrSplit' };

/**
 * Lays the cards of `request` out in `page` (replacing whatever #cards held) and returns their
 * boxes. When the content needs more than `maxCardsPerRequest` cards, no boxes are returned and
 * `needed` says how many it would take.
 */
export async function paginate(page: RenderPage, request: PaginationRequest): Promise<PaginationResult> {
  const script = await paginationScript();
  await useCardMetrics(page, request);
  return page.callScript<PaginationResult>(script, bundleGlobalName, `paginateInPage(${JSON.stringify(paginationInput(request))})`);
}

/** What the page-side pagination is given for `request`: the card templates and the document. */
export function paginationInput(request: PaginationRequest): PaginationInput {
  const card = (fixedHeight: boolean) =>
    cardMarkup({
      theme: request.theme,
      mode: request.mode,
      width: request.width,
      height: request.height,
      fontScale: request.fontScale,
      fixedHeight,
      background: request.background,
      fontFamily: request.fontFamily,
      watermark: request.watermark,
      footerHtml: signatureHtml(request.creator),
      contentHtml: '',
    });
  return {
    cardTemplate: card(true),
    measureTemplate: card(false),
    contentHtml: request.contentHtml,
    splitMode: request.splitMode,
    // autoSplit makes every card fit, so overHiddenMode has nothing to clip there.
    clipSections: request.splitMode === 'hrSplit' && request.overHiddenMode,
    maxCards: maxCardsPerRequest,
  };
}

/** Measured under the device scale of the capture: text layout differs slightly between scales. */
export async function useCardMetrics(page: RenderPage, request: PaginationRequest): Promise<void> {
  const geometry = cardGeometry(request.width, request.height, request.scale, request.fontScale);
  await page.useDeviceMetrics(Math.ceil(geometry.width), geometry.deviceScale);
}

/** Whether `contentHtml` has a heading with phrase breaks, which breakHeadingsInCards may change. */
export const hasPhrasedHeadings = (contentHtml: string): boolean => /<h[1-6][^>]*\sdata-phrases/.test(contentHtml);

/**
 * For cards already laid out whole: breaks their Chinese and Japanese headings at punctuation where
 * that reads better, as pagination does (paginate/heading-breaks.ts); true when any heading changed.
 */
export async function breakHeadingsInCards(page: RenderPage): Promise<boolean> {
  return page.callScript<boolean>(await paginationScript(), bundleGlobalName, 'breakHeadingsInCards()');
}
