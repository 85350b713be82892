// Reading images the way a user would check them: size, format, and what the pixels show.
import sharp from 'sharp';

export interface DecodedPng {
  width: number;
  height: number;
  data: Buffer;
}

export async function download(url: string): Promise<{ bytes: Buffer; response: Response }> {
  const response = await fetch(url);
  return { bytes: Buffer.from(await response.arrayBuffer()), response };
}

/** The address a preview shows one of its images from (src/http/preview-images.ts), as it appears in the answer. */
export const previewImageLink = /\/api\/preview\/images\/[0-9a-f]{40}/;

/** The bytes of an image a preview answered with: loaded from its address on `baseUrl`, which must serve it. */
export async function previewImage(baseUrl: string, link: string): Promise<Buffer> {
  const response = await fetch(new URL(link, baseUrl));
  if (response.status !== 200) throw new Error(`GET ${link} answered ${response.status}: ${await response.text()}`);
  return Buffer.from(await response.arrayBuffer());
}

/**
 * The pixels of a PNG, RGBA, 8 bits a channel. Decoded by sharp (libspng, off the main thread):
 * pngjs, which unfilters in JavaScript, took about a tenth of a shared test process's main thread.
 */
export async function decodePng(bytes: Buffer): Promise<DecodedPng> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

export const isPng = (bytes: Buffer) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
export const isJpeg = (bytes: Buffer) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
export const isWebp = (bytes: Buffer) => bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP';

/** Number of distinct RGB colours (capped), a cheap "is anything drawn here" measure. */
export function distinctColours(png: DecodedPng, cap = 10_000): number {
  const seen = new Set<number>();
  for (let i = 0; i < png.data.length && seen.size < cap; i += 4) {
    seen.add((png.data[i]! << 16) | (png.data[i + 1]! << 8) | png.data[i + 2]!);
  }
  return seen.size;
}

/** Fraction of pixels whose RGB differs between two images of the same size. */
export function differingFraction(a: DecodedPng, b: DecodedPng): number {
  if (a.width !== b.width || a.height !== b.height) return 1;
  let differing = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2]) differing++;
  }
  return differing / (a.width * a.height);
}

/** The RGB of one pixel. */
export function pixel(png: DecodedPng, x: number, y: number): [number, number, number] {
  const i = (y * png.width + x) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
}

/** Counts pixels close to an RGB colour (each channel within `tolerance`). */
export function countNear(png: DecodedPng, rgb: [number, number, number], tolerance = 24): number {
  let count = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    if (
      Math.abs(png.data[i]! - rgb[0]) <= tolerance &&
      Math.abs(png.data[i + 1]! - rgb[1]) <= tolerance &&
      Math.abs(png.data[i + 2]! - rgb[2]) <= tolerance
    ) count++;
  }
  return count;
}
