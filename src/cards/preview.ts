// The live preview of the web page: the cards of a request as the editor shows them, built by
// the same stages as the images (theme, Markdown → sanitized HTML, card markup), so the page shows
// exactly what Generate will render: a noSplit card as its markup (tables fitted by the browser
// first, between the front matter's cover and closing card when it asks for them), split cards and
// an overHiddenMode card as the images Generate captures. The browser work runs on the previews'
// own render pages (see Renderer).
import { CardError } from './errors.js';
import { fitTables, hasTables } from './render/fit-tables.js';
import { PageImages } from './render/page-images.js';
import { creatorCardsMarkup, fitCreatorCover, renderCards, singleCardMarkup } from './render/render-cards.js';
import { prepareContent, type PipelineParts } from './pipeline.js';
import type { ResolvedRequest } from './request/resolve.js';
import type { ImageLinker } from './markdown/answer-asks.js';

/**
 * One card of the preview: its markup, or (when only the browser can paginate) its image, drawn
 * `width`×`height` CSS px (the image itself has up to twice that for sharp screens): a data: URL,
 * or the address the preview's ImageLinker answered for it.
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
 * service's per-client budget, src/http/preview-budget.ts); what a method throws or rejects with
 * ends the preview.
 */
export interface PreviewMeter {
  /**
   * Before each image is fetched or drawn: every remote one in the parsed document, whatever syntax
   * wrote it (and a remote avatar), and every SVG in a data: URL.
   */
  image(): void | Promise<void>;
  /** Before a noSplit preview's tables or front matter cover are fitted to the card in the browser (a layout on a render page). */
  pageLayout(): void | Promise<void>;
  /** After a split (or overHiddenMode) preview is laid out, before any card is captured. */
  cards(count: number, devicePixels: number): void | Promise<void>;
  /** Once the Markdown is HTML: the CPU time it took in its worker, to be paid after the fact (never a refusal of this preview). */
  markdownCpu?(ms: number): void | Promise<void>;
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

async function chargeOrRefuse(charge: () => void | Promise<void>): Promise<void> {
  try {
    await charge();
  } catch (error) {
    throw new MeterRefusal(error);
  }
}

const unwrapRefusal = (error: unknown): never => {
  throw error instanceof MeterRefusal ? error.refusal : error;
};

/**
 * The cards of a request as the editor shows them. With `linkImages`, the images are kept by it and
 * shown by address: those of a preview shown as markup, and split cards captured as images (the
 * images a split preview's cards hold are inlined all the same: the render page has no network).
 */
export async function previewRequest(parts: PipelineParts, resolved: ResolvedRequest, signal: AbortSignal, meter?: PreviewMeter, linkImages?: ImageLinker): Promise<Preview> {
  const { request } = resolved;
  // weChatMode is one card as tall as its content whatever the split mode: markup, like noSplit.
  const single = request.splitMode === 'noSplit' || request.weChatMode;
  // overHiddenMode ends the card at its last whole line and marks the cut (truncate-overflow.ts),
  // which only the browser that measured the lines can do: shown as the image Generate renders.
  const asMarkup = single && !(request.overHiddenMode && !request.weChatMode);
  // The images go by address, not inlined in the markup: to the render page that draws or fits the
  // cards, and, for a preview shown as markup, to its reader at the addresses linkImages gives.
  const shown = new PageImages(asMarkup ? linkImages : undefined);
  const { theme, mode, warnings, html, creator, watermark, markdownCpuMs } = await prepareContent(parts, resolved, signal, {
    lane: 'previews',
    beforeImage: meter && (() => meter.image()),
    linkImages: !asMarkup || linkImages ? shown.link : undefined,
  });
  if (markdownCpuMs !== undefined) await meter?.markdownCpu?.(markdownCpuMs);
  let cards: PreviewCard[];
  if (asMarkup) {
    // The markup renderCards lays out and captures for a noSplit request, with the tables and the
    // front matter's cover fitted to the card as Generate fits them (fit-tables.ts and
    // cover/fit-cover.ts write their sizes into the HTML).
    let renderRequest = { ...request, theme, mode, creator, watermark, contentHtml: html };
    let coverHtml: string | undefined;
    if (hasTables(html) || creator?.cover) {
      await meter?.pageLayout();
      [renderRequest, coverHtml] = await parts.renderer.run(
        signal,
        async (page) => {
          page.showImages(shown);
          const fitted = { ...renderRequest, contentHtml: await fitTables(page, renderRequest) };
          return [fitted, await fitCreatorCover(page, fitted)] as const;
        },
        'previews',
      );
    }
    const { cover, end } = creatorCardsMarkup(renderRequest, coverHtml);
    cards = [cover, singleCardMarkup(renderRequest), end].filter((markup) => markup !== '').map((markup) => ({ html: markup }));
  } else {
    // Split cards exist only after the browser has measured the content: show what it renders, on
    // the preview's own render pages (see Renderer).
    const scale = Math.min(request.scale, maxPreviewScale);
    const chargeCards = meter && ((count: number, pixels: number) => chargeOrRefuse(() => meter.cards(count, pixels)));
    const images = await parts.renderer
      .run(
        signal,
        (page) => {
          page.showImages(shown);
          return renderCards(page, { ...request, theme, mode, creator, watermark, scale, format: 'webp', contentHtml: html }, parts.renderLimits, chargeCards);
        },
        'previews',
      )
      .catch(unwrapRefusal);
    cards = await Promise.all(
      images.map(async (image) => ({
        image: linkImages
          ? await linkImages({ mimeType: 'image/webp', bytes: image.data, width: image.width, height: image.height })
          : `data:image/webp;base64,${image.data.toString('base64')}`,
        width: image.width / scale,
        height: image.height / scale,
      })),
    );
  }
  return { cards, theme: theme.id, themeMode: mode ?? null, width: request.width, height: request.height, warnings };
}
