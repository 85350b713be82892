// The last step of a card: libvips (sharp) compresses the captured pixels as the asked format.
// When the encoder fails it fails on these pixels (libwebp gives up on some large, finely
// detailed images: "webpsave: unable to encode"), so drawing the card again on a fresh page would
// fail the same way after as much work again. Its failure is the request's, told as such, and
// never retried (the page pool retries only what went wrong in the browser).
import type { Sharp } from 'sharp';
import { CardError } from '../errors.js';
import type { ImageFormat } from './render-page.js';

const formatName: Record<ImageFormat, string> = { png: 'PNG', jpeg: 'JPEG', webp: 'WebP' };

/** Runs `image`'s encoder; a failure becomes a content_too_large refusal naming the format. */
export async function encodeImage(image: Sharp, format: ImageFormat): Promise<Buffer> {
  try {
    return await image.toBuffer();
  } catch (error) {
    const reason = ((error as Error).message ?? String(error)).split('\n')[0];
    const otherFormats = (['png', 'jpeg'] as const).filter((other) => other !== format).map((other) => `"${other}"`);
    throw new CardError(
      'content_too_large',
      `The card could not be encoded as ${formatName[format]} (${reason}). ` +
        `Use format ${otherFormats.join(' or ')}, or a smaller width, height or scale.`,
      { cause: error },
    );
  }
}
