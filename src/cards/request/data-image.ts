// An image given inline in a request (an avatar, a watermark's logo): a base64 data: URI of a raster
// format the render page decodes itself. SVG is left out: an SVG may refer to other resources, and
// one in the Markdown is drawn as PNG first (images/svg-raster.ts), which a small logo does not need.
import { imageSize } from 'image-size';
import { decodeDataUrl } from '../images/sniff-image.js';

/** The pattern as JSON Schema writes it (`pattern`), so the API documents what it accepts. */
export const dataImagePattern = '^data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$';

export const dataImageUri = new RegExp(dataImagePattern);

/** The pixel size the image's header declares, or undefined when its bytes are not an image of a known kind. */
export function dataImageSize(uri: string): { width: number; height: number } | undefined {
  const decoded = decodeDataUrl(uri);
  if (!decoded) return undefined;
  try {
    const { width, height } = imageSize(decoded.bytes);
    return width && height ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}
