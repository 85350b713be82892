// The long image (长图文): one noSplit card taller than one capture may be. Chromium gives up on
// captures beyond 16,384 device px, so the card is captured in tiles, top to bottom, each within
// the same laid-out page, and libvips (sharp) joins them into one image and encodes it once.
// The tiles are cut at whole device-pixel rows of one layout, so the joined image is the same,
// pixel for pixel, as one capture would be: no seam, no repeated or missing row.
import { imageSize } from 'image-size';
import { sharp } from '../../sharp.js';
import { CardError } from '../errors.js';
import { encodeImage } from './encode-image.js';
import type { CardBox, ImageFormat, RenderPage } from './render-page.js';

/** Captures up to this tall (device px) are taken in one go, as every other card is. */
export const maxSingleCapturePixelHeight = 16_384;

/**
 * What one long image may be, in device pixels. Height: 65,000, under JPEG's 65,535 limit, which is
 * about 60 phone screens at the default 440 px × 2. Area: 60 million pixels, which bounds the
 * memory a join takes (README "Long images" has the measured figures).
 */
export const longImageBudget = { maxHeight: 65_000, maxPixels: 60_000_000 } as const;

/** WebP cannot encode an image taller or wider than this. */
export const maxWebpDimension = 16_383;

/** Tile height in device px: well within what a capture handles, few enough seams and round trips. */
const tilePixelHeight = 8_192;

/**
 * Checks a noSplit card of `box` (CSS px of the page) can become one image at `deviceScale` device px
 * per CSS px; throws content_too_large otherwise. Sizes are told in the request's own px (`width`,
 * `scale`), which differ from the page's when fontScale is not 1.
 */
export function checkLongImage(box: CardBox, deviceScale: number, format: ImageFormat, asked: { width: number; scale: number }): void {
  const width = Math.round(box.width * deviceScale);
  const height = Math.round(box.height * deviceScale);
  const cssHeight = Math.ceil(height / asked.scale);
  const tall = `The content is ${cssHeight.toLocaleString('en-US')} px tall at width ${asked.width} (${height.toLocaleString('en-US')} device px at scale ${asked.scale})`;
  if (format === 'webp' && (height > maxWebpDimension || width > maxWebpDimension)) {
    throw new CardError(
      'content_too_large',
      `${tall}; WebP images stop at ${maxWebpDimension.toLocaleString('en-US')} px. ` +
        'Use format "png" or "jpeg" for one long image, or splitMode "autoSplit" or "hrSplit" for several cards.',
    );
  }
  if (height > longImageBudget.maxHeight || width * height > longImageBudget.maxPixels) {
    const maxCssHeight = Math.floor(Math.min(longImageBudget.maxHeight, longImageBudget.maxPixels / width) / asked.scale);
    throw new CardError(
      'content_too_large',
      `${tall}, over what one image may be: at this width and scale at most ${maxCssHeight.toLocaleString('en-US')} px ` +
        `(${longImageBudget.maxHeight.toLocaleString('en-US')} device px tall and ${longImageBudget.maxPixels / 1_000_000} million device pixels). ` +
        'Use splitMode "autoSplit" or "hrSplit" to make several cards, overHiddenMode to clip to the height, a smaller scale, or less content.',
    );
  }
}

/** True when the card must be captured in tiles. */
export function needsTiles(box: CardBox, scale: number): boolean {
  return box.height * scale > maxSingleCapturePixelHeight;
}

/**
 * Captures `box` in tiles and joins them. Tiles are captured as PNG (lossless), so a JPEG is
 * compressed once, from the whole image, as a single capture would be.
 */
export async function captureLongImage(page: RenderPage, box: CardBox, scale: number, format: ImageFormat, signal?: AbortSignal): Promise<Buffer> {
  const tileHeight = tileCssHeight(scale);
  const tiles: Buffer[] = [];
  let pixelHeight = 0;
  for (let top = 0; top < box.height; top += tileHeight) {
    signal?.throwIfAborted();
    // Chromium clips a capture to whole CSS px: a fractional last tile or width (fontScale ≠ 1) is
    // rounded up here and the extra device pixels cropped below.
    const height = Math.ceil(Math.min(tileHeight, box.height - top));
    const tile = await page.capture({ x: box.x, y: box.y + top, width: Math.ceil(box.width), height }, { scale, format: 'png' });
    pixelHeight += imageSize(tile).height ?? 0;
    tiles.push(tile);
  }
  signal?.throwIfAborted();
  // libvips lays joined images out in a grid of equal cells, so the shorter last tile leaves a
  // padded cell below it: the image is cut back to the tiles' own total height.
  // Sequential access lets libvips stream the tiles top to bottom instead of decoding all at once.
  const joined = sharp(tiles, { join: { across: 1, valign: 'top' }, sequentialRead: true, limitInputPixels: longImageBudget.maxPixels }).extract({
    left: 0,
    top: 0,
    width: Math.round(box.width * scale),
    height: Math.min(pixelHeight, Math.round(box.height * scale)),
  });
  // Without Huffman optimisation the JPEG encoder streams too: optimising holds every coefficient
  // of the image in memory first (about 200 MB more for a 40,000 px image, measured).
  const encoded =
    format === 'jpeg'
      ? joined.flatten({ background: '#ffffff' }).jpeg({ quality: 90, optimiseCoding: false })
      : format === 'webp'
        ? joined.webp({ quality: 90 })
        : joined.png({ compressionLevel: 6, adaptiveFiltering: false });
  return encodeImage(encoded, format);
}

/**
 * The tile height in CSS px: the largest that stays within tilePixelHeight and is a whole number of
 * device pixels, so every seam falls on a pixel row boundary (scale 1.5 → multiples of 2 px).
 */
export function tileCssHeight(scale: number): number {
  const most = Math.floor(tilePixelHeight / scale);
  for (let height = most; height > most / 2; height--) {
    const pixels = height * scale;
    if (Math.abs(pixels - Math.round(pixels)) < 1e-9) return height;
  }
  return most;
}
