// Renders one request's cards on a page: lays out the card markup, captures each card, and
// checks the images are what the request asked for.
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { CardError } from '../errors.js';
import type { Theme } from '../themes/theme-file.js';
import { cardGeometry, cardMarkup } from './card-markup.js';
import { fitTables } from './fit-tables.js';
import { maxCardsPerRequest, paginate } from './paginate.js';
import { truncateOverflow } from './truncate-overflow.js';
import { lossyQuality, type CardBox, type ImageFormat, type RenderPage } from './render-page.js';

export type SplitMode = 'noSplit' | 'autoSplit' | 'hrSplit';

export interface CardRenderRequest {
  theme: Theme;
  mode?: string;
  width: number;
  height: number;
  scale: number;
  /** Multiplies the theme's type and spacing; the image keeps width × height × scale pixels. */
  fontScale?: number;
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
  request = { ...request, contentHtml: await fitTables(page, request) };
  const boxes = splitMode === 'noSplit' ? await layoutSingleCard(page, request) : await layoutPages(page, { ...request, splitMode });
  // Cards clipped to their height (overHiddenMode, or a line taller than a card) end at a whole line.
  if (request.overHiddenMode || splitMode !== 'noSplit') await truncateOverflow(page);
  const { deviceScale } = cardGeometry(request.width, request.height, request.scale, request.fontScale);
  const images: RenderedImage[] = [];
  for (const box of boxes) {
    const data = await captureCard(page, box, deviceScale, request.format);
    const size = imageSize(data);
    images.push({ data, format: request.format, width: size.width ?? 0, height: size.height ?? 0 });
  }
  return images;
}

/**
 * Captures one card as exactly round(box × deviceScale) pixels. Chromium clips a capture to whole
 * CSS px, so a card whose size is fractional in CSS px (fontScale ≠ 1) is captured with the
 * fraction rounded up and the few extra device pixels cropped away. Cards start on whole CSS px
 * (themes/_base.css), so the crop starts at the card's first pixel.
 */
async function captureCard(page: RenderPage, box: CardBox, deviceScale: number, format: ImageFormat): Promise<Buffer> {
  const whole = (value: number) => Math.abs(value - Math.round(value)) < 1e-6;
  if (whole(box.width) && whole(box.height)) return page.capture(box, { scale: deviceScale, format });
  const width = Math.round(box.width * deviceScale);
  const height = Math.round(box.height * deviceScale);
  const png = await page.capture({ ...box, width: Math.ceil(box.width), height: Math.ceil(box.height) }, { scale: deviceScale, format: 'png' });
  const cropped = sharp(png).extract({ left: 0, top: 0, width, height });
  if (format === 'png') return cropped.png().toBuffer();
  return (format === 'jpeg' ? cropped.jpeg({ quality: lossyQuality }) : cropped.webp({ quality: lossyQuality })).toBuffer();
}

/** noSplit: one card that grows with its content, or is clipped to `height` with overHiddenMode. */
async function layoutSingleCard(page: RenderPage, request: CardRenderRequest): Promise<CardBox[]> {
  // Measured under the device scale of the capture: text layout differs slightly between scales.
  const geometry = cardGeometry(request.width, request.height, request.scale, request.fontScale);
  await page.useDeviceMetrics(Math.ceil(geometry.width), geometry.deviceScale);
  const markup = cardMarkup({
    theme: request.theme,
    mode: request.mode,
    width: request.width,
    height: request.height,
    fontScale: request.fontScale,
    fixedHeight: request.overHiddenMode,
    contentHtml: request.contentHtml,
  });
  const boxes = await page.layout(markup);
  const tallest = Math.max(...boxes.map((box) => box.height));
  if (tallest * geometry.deviceScale > maxImagePixelHeight) {
    throw new CardError(
      'content_too_large',
      `The content is ${Math.ceil(tallest * (request.fontScale ?? 1))} px tall at width ${request.width}, over the ${maxImagePixelHeight} px ` +
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
