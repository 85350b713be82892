// One card captured as an image of exactly the size asked for: the browser's own capture where
// it can, else a PNG capture cropped and compressed by libvips (sharp).
import { sharp } from '../../sharp.js';
import { encodeImage } from './encode-image.js';
import { lossyQuality, type CardBox, type ImageFormat, type RenderPage } from './render-page.js';

/**
 * Captures one card as exactly round(box × deviceScale) pixels. Chromium clips a capture to whole
 * CSS px, so a card whose size is fractional in CSS px (fontScale ≠ 1) is captured with the
 * fraction rounded up and the few extra device pixels cropped away. Cards start on whole CSS px
 * (themes/_base.css), so the crop starts at the card's first pixel. A large JPEG or WebP card is
 * captured as PNG and compressed here too (see largestBrowserEncodedPixels).
 */
export async function captureCard(page: Pick<RenderPage, 'capture'>, box: CardBox, deviceScale: number, format: ImageFormat): Promise<Buffer> {
  const whole = (value: number) => Math.abs(value - Math.round(value)) < 1e-6;
  const width = Math.round(box.width * deviceScale);
  const height = Math.round(box.height * deviceScale);
  const browserEncodes = format === 'png' || width * height <= largestBrowserEncodedPixels;
  if (whole(box.width) && whole(box.height) && browserEncodes) return page.capture(box, { scale: deviceScale, format });
  const png = await page.capture({ ...box, width: Math.ceil(box.width), height: Math.ceil(box.height) }, { scale: deviceScale, format: 'png' });
  const cropped = sharp(png).extract({ left: 0, top: 0, width, height });
  const encoder =
    format === 'png' ? cropped.png() : format === 'jpeg' ? cropped.jpeg({ quality: lossyQuality }) : cropped.webp({ quality: lossyQuality, effort: largeWebpEffort });
  return encodeImage(encoder, format);
}

/**
 * Chromium compresses a JPEG or WebP capture in the browser process, which answers nothing else
 * meanwhile: a 2,000×4,000 card at scale 2 of fine gradients took 22 s as WebP, so the browser
 * failed its health probes and was killed with every render on it (a 500 for that request). Cards
 * larger than this are captured as PNG, which Chromium compresses fast, and compressed by libvips
 * off the browser, within the card's drawing time (render-limits.ts). Smaller cards keep the
 * browser's own encoder: no extra decoding, same images as before.
 */
const largestBrowserEncodedPixels = 4_000_000;

/**
 * libvips' WebP effort (0–6): its default (4) took 72 s on that card, effort 1 took 14 s for an
 * image of the same size and quality.
 */
const largeWebpEffort = 1;
