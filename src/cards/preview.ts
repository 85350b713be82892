// The live preview of the web page: the cards of a request as the editor shows them, built by
// the same stages as the images (theme, Markdown → sanitized HTML, card markup), so the page shows
// exactly what Generate will render.
import { CardError } from './errors.js';
import { renderCards, singleCardMarkup } from './render/render-cards.js';
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

/**
 * Told what a preview costs as the cost becomes known, so a front end can charge for it (the HTTP
 * service's per-client budget, src/http/preview-budget.ts); what a method throws ends the preview.
 */
export interface PreviewMeter {
  /** Before each remote image is fetched: every one in the parsed document, whatever syntax wrote it. */
  remoteImage(): void;
  /** After a split preview is laid out, before any card is captured. */
  cards(count: number, devicePixels: number): void;
}

/**
 * What the meter threw, carried through the render pool as a refusal of the request (a CardError),
 * so the pool neither takes it for a crash to retry nor closes the page, which is clean.
 */
class MeterRefusal extends CardError {
  constructor(readonly refusal: unknown) {
    super('busy', 'the preview was refused by its meter', { cause: refusal });
  }
}

function chargeOrRefuse(charge: () => void): void {
  try {
    charge();
  } catch (error) {
    throw new MeterRefusal(error);
  }
}

export async function previewRequest(parts: PipelineParts, request: CardRequest, signal: AbortSignal, meter?: PreviewMeter): Promise<Preview> {
  const { theme, mode, warnings, html } = await prepareContent(parts, request, signal, meter && (() => meter.remoteImage()));
  let cards: PreviewCard[];
  // weChatMode is one card as tall as its content whatever the split mode: markup, like noSplit.
  if (request.splitMode === 'noSplit' || request.weChatMode) {
    // The markup renderCards lays out and captures for a noSplit request, built without the browser.
    cards = [{ html: singleCardMarkup({ ...request, theme, mode, contentHtml: html }) }];
  } else {
    // Split cards exist only after the browser has measured the content: show what it renders, on
    // the preview's own render pages (see Renderer).
    const scale = Math.min(request.scale, maxPreviewScale);
    const chargeCards = meter && ((count: number, pixels: number) => chargeOrRefuse(() => meter.cards(count, pixels)));
    const images = await parts.renderer
      .run(signal, (page) => renderCards(page, { ...request, theme, mode, scale, format: 'webp', contentHtml: html }, parts.renderLimits, chargeCards), 'previews')
      .catch((error: unknown) => {
        throw error instanceof MeterRefusal ? error.refusal : error;
      });
    cards = images.map((image) => ({
      image: `data:image/webp;base64,${image.data.toString('base64')}`,
      width: image.width / scale,
      height: image.height / scale,
    }));
  }
  return { cards, theme: theme.id, themeMode: mode ?? null, width: request.width, height: request.height, warnings };
}
