// Renders one request's cards on a page: lays out the card markup, captures each card, and
// checks the images are what the request asked for.
import { withDescription } from '../alt-text/png-description.js';
import { readAltTexts } from '../alt-text/read-alt-text.js';
import { imageSize } from 'image-size';
import { CardError } from '../errors.js';
import type { Theme } from '../themes/theme-file.js';
import type { CreatorOptions } from '../request/schema.js';
import type { Watermark } from '../request/watermark.js';
import { cardGeometry, cardMarkup } from './card-markup.js';
import { coverContentHtml, endContentHtml, signatureHtml } from './creator-cards.js';
import { fitCover, smallestCreatorCoverFit } from '../cover/fit-cover.js';
import { fitTables } from './fit-tables.js';
import { captureLongImage, checkLongImage, maxSingleCapturePixelHeight, needsTiles } from './long-image.js';
import { breakHeadingsInCards, hasPhrasedHeadings, maxCardsPerRequest, paginate } from './paginate.js';
import { ByteBudget, checkPixels, defaultRenderLimits, withinStepTime, type RenderLimits } from './render-limits.js';
import { truncateOverflow } from './truncate-overflow.js';
import type { CardBox, ImageFormat, RenderPage } from './render-page.js';
import { captureCard } from './capture-card.js';

export type SplitMode = 'noSplit' | 'autoSplit' | 'hrSplit';
/** An image format, or `pdf`: every card as a page of one PDF. */
export type OutputFormat = ImageFormat | 'pdf';

export interface CardRenderRequest {
  theme: Theme;
  mode?: string;
  width: number;
  height: number;
  scale: number;
  /** Multiplies the theme's type and spacing; the image keeps width × height × scale pixels. */
  fontScale?: number;
  format: OutputFormat;
  splitMode: SplitMode;
  overHiddenMode: boolean;
  /** One image as tall as the content, without the card's frame (WeChat article); splitMode and overHiddenMode do not apply. */
  weChatMode?: boolean;
  /** A CSS colour or gradient checked by request/background.ts. */
  background?: string;
  /** A bundled face for the body text instead of the theme's. */
  fontFamily?: string;
  /** The creator's mark, drawn on every card (request/watermark.ts). */
  watermark?: Watermark;
  /** The front matter's cover, signature and closing card; the avatar, if any, is a data: URI by now. */
  creator?: CreatorOptions;
  /** Sanitized HTML of the whole document. */
  contentHtml: string;
}

export interface RenderedImage {
  data: Buffer;
  format: OutputFormat;
  /** Pixel size of the image; for a PDF, the size of its first page in CSS px. */
  width: number;
  height: number;
  /** What the card shows, as text (alt-text/read-alt-text.ts); a PNG carries it too. For a PDF, every page's, one after the other. */
  alt: string;
  /** For a PDF: its pages, one per card. */
  pages?: number;
}

/**
 * Lays out and captures the cards of `request`, within `limits` (render-limits.ts): the laid-out
 * cards' device pixels are checked before the first capture, each image's bytes as it is captured,
 * and the layout and each card's capture have a time limit of their own (a step that runs over it
 * while the browser makes no progress is a frozen renderer, not a heavy card: drawing-progress.ts).
 */
export async function renderCards(
  page: RenderPage,
  request: CardRenderRequest,
  limits: RenderLimits = defaultRenderLimits,
  /** Told the cards' number and device pixels after layout, before any capture; what it throws or rejects with ends the render. */
  beforeCapture?: (cards: number, devicePixels: number) => void | Promise<void>,
): Promise<RenderedImage[]> {
  const boxes = await withinStepTime(layoutCards(page, request), limits, 'Laying out the content', page);
  const alts = await readAltTexts(page);
  const { deviceScale } = cardGeometry(request.width, request.height, request.scale, request.fontScale);
  if (request.format === 'pdf') {
    // A PDF's pages are vector, printed at their CSS size whatever the scale: its pixels are counted
    // at scale 1, its bytes as one image, and printing every page is one step per page in time.
    const pixels = checkPixels(boxes, 1, limits, { scale: 1 });
    await beforeCapture?.(boxes.length, pixels);
    const pdf = await withinStepTime(printCards(page, request, boxes, alts), { ...limits, stepTimeoutMs: limits.stepTimeoutMs * boxes.length }, 'Printing the cards as a PDF', page);
    new ByteBudget(limits, 1).add(pdf.data.length, 1);
    return [{ ...pdf, alt: alts.join('\n\n') }];
  }
  const format = request.format;
  const pixels = checkPixels(boxes, deviceScale, limits, request);
  await beforeCapture?.(boxes.length, pixels);
  const bytes = new ByteBudget(limits, boxes.length);
  const images: RenderedImage[] = [];
  for (const [index, box] of boxes.entries()) {
    const what = boxes.length === 1 ? 'Drawing the card' : `Drawing card ${index + 1} of ${boxes.length}`;
    // A long image is captured in tiles, each a capture of its own.
    const tiles = needsTiles(box, deviceScale) ? Math.ceil((box.height * deviceScale) / maxSingleCapturePixelHeight) : 1;
    const data = await withinStepTime(
      tiles > 1 ? captureLongImage(page, box, deviceScale, format) : captureCard(page, box, deviceScale, format),
      { ...limits, stepTimeoutMs: limits.stepTimeoutMs * tiles },
      what,
      page,
    );
    bytes.add(data.length, index + 1);
    const size = imageSize(data);
    const alt = alts[index] ?? '';
    images.push({ data: format === 'png' ? withDescription(data, alt) : data, format, width: size.width ?? 0, height: size.height ?? 0, alt });
  }
  return images;
}

/** The boxes of the request's cards, laid out in the page (and clipped where the request says). */
async function layoutCards(page: RenderPage, request: CardRenderRequest): Promise<CardBox[]> {
  const { splitMode } = request;
  if (request.background !== undefined) await checkBackgroundInPage(page, request.background);
  request = { ...request, contentHtml: await fitTables(page, request) };
  // Measured before the content is laid out: fitting lays the cover out alone in the page.
  const coverHtml = await fitCreatorCover(page, request);
  // weChatMode is one card as tall as its content, whatever the split mode.
  const single = splitMode === 'noSplit' || request.weChatMode === true;
  const contentBoxes = single ? await layoutSingleCard(page, request) : await layoutPages(page, { ...request, splitMode: splitMode as 'autoSplit' | 'hrSplit' });
  // Cards clipped to their height (overHiddenMode, or a line taller than a card) end at a whole line.
  if (single ? request.overHiddenMode && !request.weChatMode : true) await truncateOverflow(page);
  return addCreatorCards(page, request, contentBoxes, coverHtml);
}

/**
 * The content of the front matter's cover card, fitted to the card (cover/fit-cover.ts); undefined
 * when the front matter asks for no cover. The noSplit preview shows it as Generate draws it.
 */
export async function fitCreatorCover(page: RenderPage, request: CardRenderRequest): Promise<string | undefined> {
  const fontScale = request.fontScale ?? 1;
  const html = coverContentHtml(request.creator, request.width / fontScale, request.height / fontScale);
  if (html === undefined) return undefined;
  const { theme, mode, width, height, scale, fontFamily, background, watermark } = request;
  return fitCover(page, { theme, mode, width, height, scale, fontScale, fontFamily, background, watermark, kind: 'cover-card', html, smallest: smallestCreatorCoverFit });
}

/**
 * The front matter's cover before the content's cards and its closing card after them, each a
 * fixed-size card of the request's theme (in every split mode); the boxes of all cards, in order.
 */
async function addCreatorCards(page: RenderPage, request: CardRenderRequest, contentBoxes: CardBox[], coverHtml: string | undefined): Promise<CardBox[]> {
  const { cover, end } = creatorCardsMarkup(request, coverHtml);
  if (!cover && !end) return contentBoxes;
  const boxes = await page.addCards(cover, end);
  if (boxes.length > maxCardsPerRequest) {
    throw new CardError(
      'content_too_large',
      `The content needs ${boxes.length} cards with its cover and closing card; at most ${maxCardsPerRequest} cards are made per request. ` +
        'Split the Markdown into several requests, or use a larger height.',
    );
  }
  return boxes;
}

/**
 * The markup of the front matter's cover card and closing card ('' for one it does not ask for),
 * the cover's content as fitCreatorCover made it; the live preview shows exactly this.
 */
export function creatorCardsMarkup(request: CardRenderRequest, coverHtml: string | undefined): { cover: string; end: string } {
  const fontScale = request.fontScale ?? 1;
  const card = (contentHtml: string | undefined, kind: 'cover-card' | 'end-card') =>
    contentHtml === undefined
      ? ''
      : cardMarkup({
          theme: request.theme,
          mode: request.mode,
          width: request.width,
          height: request.height,
          fontScale,
          fontFamily: request.fontFamily,
          fixedHeight: true,
          background: request.background,
          watermark: request.watermark,
          contentHtml,
          kind,
        });
  return {
    cover: card(coverHtml, 'cover-card'),
    end: card(endContentHtml(request.creator), 'end-card'),
  };
}

/** format "pdf": the cards on the page as the pages of one PDF, reported at the first card's size. */
async function printCards(page: RenderPage, request: CardRenderRequest, boxes: CardBox[], alts: string[]): Promise<Omit<RenderedImage, 'alt'>> {
  const fontScale = request.fontScale ?? 1;
  const data = await page.printCards(fontScale, alts);
  const first = boxes[0] ?? { width: request.width / fontScale, height: request.height / fontScale };
  return { data, format: 'pdf', width: Math.round(first.width * fontScale), height: Math.round(first.height * fontScale), pages: boxes.length };
}

/** The markup of a noSplit (or weChatMode) card: the live preview shows exactly this. */
export function singleCardMarkup(request: CardRenderRequest): string {
  return cardMarkup({
    theme: request.theme,
    mode: request.mode,
    width: request.width,
    height: request.height,
    fontScale: request.fontScale,
    fixedHeight: request.overHiddenMode,
    wechat: request.weChatMode,
    background: request.background,
    fontFamily: request.fontFamily,
    watermark: request.watermark,
    footerHtml: signatureHtml(request.creator),
    contentHtml: request.contentHtml,
  });
}

/**
 * noSplit: one card that grows with its content (a long image beyond one capture, see
 * long-image.ts), or is clipped to `height` with overHiddenMode. weChatMode: one frameless card
 * exactly as tall as its content.
 */
async function layoutSingleCard(page: RenderPage, request: CardRenderRequest): Promise<CardBox[]> {
  // Measured under the device scale of the capture: text layout differs slightly between scales.
  const geometry = cardGeometry(request.width, request.height, request.scale, request.fontScale);
  await page.useDeviceMetrics(Math.ceil(geometry.width), geometry.deviceScale);
  let boxes = await page.layout(singleCardMarkup(request));
  // A heading broken at its punctuation may have fewer lines: the boxes are read again (adding no cards).
  if (hasPhrasedHeadings(request.contentHtml) && (await breakHeadingsInCards(page))) boxes = await page.addCards('', '');
  // A PDF page of a long card is bounded as a PNG of it would be.
  for (const box of boxes) checkLongImage(box, geometry.deviceScale, request.format === 'pdf' ? 'png' : request.format, request);
  return boxes;
}

/**
 * The browser's own parser has the last word on `background`: a value of allowed words that is not
 * valid CSS (`red blue`) would silently leave the theme's background, so it is a 400 instead.
 */
async function checkBackgroundInPage(page: RenderPage, background: string): Promise<void> {
  const valid = await page.evaluate<boolean>(`CSS.supports('background', ${JSON.stringify(background)})`);
  if (!valid) {
    throw new CardError(
      'invalid_request',
      `background is not accepted: got ${JSON.stringify(background)}, which is not a valid CSS colour or gradient. ` +
        'Accepted: a colour such as #f5e6d3 or rgb(245 230 211), or a gradient such as linear-gradient(135deg, #ffecd2, #fcb69f).',
    );
  }
}

/** autoSplit and hrSplit: cards of exactly width × height, at most `maxCardsPerRequest` of them. */
async function layoutPages(page: RenderPage, request: CardRenderRequest & { splitMode: 'autoSplit' | 'hrSplit' }): Promise<CardBox[]> {
  const { boxes, needed } = await paginate(page, request);
  if (needed > maxCardsPerRequest) {
    throw new CardError(
      'content_too_large',
      `The content needs ${needed} cards of ${request.width}×${request.height} px with splitMode "${request.splitMode}"; ` +
        `at most ${maxCardsPerRequest} cards are made per request. Split the Markdown into several requests, or use a larger height.`,
    );
  }
  return boxes;
}
