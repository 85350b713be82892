// Renders one request's cards on a page: lays out the card markup, captures each card, and
// checks the images are what the request asked for.
import { imageSize } from 'image-size';
import { CardError } from '../errors.js';
import type { Theme } from '../themes/theme-file.js';
import { cardMarkup } from './card-markup.js';
import { maxCardsPerRequest, paginate } from './paginate.js';
import type { CardBox, ImageFormat, RenderPage } from './render-page.js';

export type SplitMode = 'noSplit' | 'autoSplit' | 'hrSplit';

export interface CardRenderRequest {
  theme: Theme;
  mode?: string;
  width: number;
  height: number;
  scale: number;
  format: ImageFormat;
  splitMode: SplitMode;
  overHiddenMode: boolean;
  /** Sanitized HTML of the whole document. */
  contentHtml: string;
}

export interface RenderedImage {
  data: Buffer;
  format: ImageFormat;
  /** Pixel size of the image. */
  width: number;
  height: number;
}

/**
 * The tallest image one card may become, in device pixels. Taller captures exhaust Chromium's
 * raster limits and produce images no social platform accepts; such content should be split.
 */
export const maxImagePixelHeight = 16_384;

export async function renderCards(page: RenderPage, request: CardRenderRequest): Promise<RenderedImage[]> {
  const { splitMode } = request;
  const boxes = splitMode === 'noSplit' ? await layoutSingleCard(page, request) : await layoutPages(page, { ...request, splitMode });
  const images: RenderedImage[] = [];
  for (const box of boxes) {
    const data = await page.capture(box, { scale: request.scale, format: request.format });
    const size = imageSize(data);
    images.push({ data, format: request.format, width: size.width ?? 0, height: size.height ?? 0 });
  }
  return images;
}

/** noSplit: one card that grows with its content, or is clipped to `height` with overHiddenMode. */
async function layoutSingleCard(page: RenderPage, request: CardRenderRequest): Promise<CardBox[]> {
  // Measured under the device scale of the capture: text layout differs slightly between scales.
  await page.useDeviceMetrics(request.width, request.scale);
  const markup = cardMarkup({
    theme: request.theme,
    mode: request.mode,
    width: request.width,
    height: request.height,
    fixedHeight: request.overHiddenMode,
    contentHtml: request.contentHtml,
  });
  const boxes = await page.layout(markup);
  const tallest = Math.max(...boxes.map((box) => box.height));
  if (tallest * request.scale > maxImagePixelHeight) {
    throw new CardError(
      'content_too_large',
      `The content is ${Math.ceil(tallest)} px tall at width ${request.width}, over the ${maxImagePixelHeight} px ` +
        `one image may have at scale ${request.scale}. Use splitMode "autoSplit", overHiddenMode, a smaller scale, or less content.`,
    );
  }
  return boxes;
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
