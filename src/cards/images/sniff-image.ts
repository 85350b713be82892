// What an image's bytes really are: the type is read from the bytes (never from what the sender
// claimed), and only types the render page may draw are accepted, within a pixel bound against
// decompression bombs. Pure JavaScript (image-size), so the Markdown workers use it too.
import { imageSize } from 'image-size';
import { RemoteImageRefused, type FetchedImage } from './remote-image-fetcher.js';

/** Image types Chromium draws, keyed by image-size's sniffed type. SVG is converted first (svg-raster.ts). */
export const mimeOfSniffedType: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  svg: 'image/svg+xml',
  heif: 'image/avif',
};

/** Largest accepted width × height of an image: 40 megapixels. */
export const maxImagePixels = 40_000_000;

/** Trusts the bytes, not the declared type; throws RemoteImageRefused for what may not be drawn. */
export function sniffImage(bytes: Buffer, declared: string, maxPixels = maxImagePixels): FetchedImage {
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(bytes);
  } catch {
    throw new RemoteImageRefused(`the body is not an image (declared ${declared})`);
  }
  const mimeType = size.type && mimeOfSniffedType[size.type];
  // HEIF-family bytes are drawable only as AVIF; HEIC photos are not.
  if (size.type === 'heif' && !/^image\/avif/i.test(declared)) throw new RemoteImageRefused('HEIC images cannot be shown');
  if (!mimeType) throw new RemoteImageRefused(`image type ${size.type} cannot be shown`);
  if (size.width * size.height > maxPixels) throw new RemoteImageRefused(`${size.width}×${size.height} pixels is too large`);
  return { mimeType, bytes, width: size.width, height: size.height };
}

/** The bytes of a `data:` URL and the type it declares, or undefined when it is not one. */
export function decodeDataUrl(src: string): { declared: string; bytes: Buffer } | undefined {
  const match = /^data:([^,]*),/i.exec(src);
  if (!match) return undefined;
  const parameters = match[1]!.split(';').map((part) => part.trim());
  const body = src.slice(match[0].length);
  const declared = parameters[0]?.toLowerCase() ?? '';
  if (parameters.slice(1).some((part) => part.toLowerCase() === 'base64')) return { declared, bytes: Buffer.from(body, 'base64') };
  try {
    return { declared, bytes: Buffer.from(decodeURIComponent(body), 'utf8') };
  } catch {
    return undefined;
  }
}
