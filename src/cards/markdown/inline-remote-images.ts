// Turns every http(s) <img> of the sanitized tree into a `data:` URI fetched by the server through
// the SSRF guard, so the render page (which has no network) can draw it. An image that could not
// be fetched keeps its URL and is drawn as a placeholder with its alt text by the next step.
// `data:` images written in the document are checked by their bytes the same way: a type the page
// may draw, within the pixel bound; an SVG (remote or data:) comes back from the image source
// drawn as a PNG (images/svg-raster.ts), so the render page never gets an SVG.
import type { Element, Root } from 'hast';
import type { VFile } from 'vfile';
import { SKIP, visit } from 'unist-util-visit';
import { isHighlightedCode } from './highlighted-code.js';
import { RemoteImageRefused, toDataUri, type FetchedImage, type ImageSource } from '../images/remote-image-fetcher.js';
import { decodeDataUrl, sniffImage } from '../images/sniff-image.js';

/** Per-document limits, so one request cannot make the server fetch without end. */
const maxImagesPerDocument = 50;
const maxBytesPerDocument = 40 * 1024 * 1024;
/** Images of one document fetched at once (here, and by the Markdown pool for its workers: answer-asks.ts). */
export const parallelFetches = 4;

export interface RemoteImageContext {
  /** Fetches http(s) images and draws SVGs (remote or data:) as PNG; without it both are placeholders. */
  fetcher?: ImageSource;
  /** Whether http(s) images are asked of the fetcher (REMOTE_IMAGES is not off). */
  fetchRemote: boolean;
  signal?: AbortSignal;
  /** Why each image that was not inlined failed, for the operator's log. */
  failures: { src: string; reason: string }[];
}

declare module 'vfile' {
  interface DataMap {
    remoteImages: RemoteImageContext;
  }
}

/** Images shown from a link to the server's copy (FetchedImage.link), not inlined: loaded, all the same. */
export const linkedImages = new WeakSet<Element>();

/**
 * Markdown's URL normalization escapes the brackets of an IPv6 literal host
 * (`http://[::1]/a.png` becomes `http://%5B::1%5D/a.png`), which no URL parser reads as a host:
 * the brackets of the host part are put back, so such an image is fetched like any other.
 */
const escapedIpv6Host = /^(https?:\/\/(?:[^/?#@]*@)?)%5B([0-9a-f:.]+(?:%25[\w.~-]+)?)%5D/i;

const unescapeIpv6Host = (src: string): string => src.replace(escapedIpv6Host, '$1[$2]');

export function rehypeInlineRemoteImages() {
  return async (tree: Root, file: VFile) => {
    const context = file.data.remoteImages;
    if (!context) return;
    const images: Element[] = [];
    visit(tree, 'element', (node: Element) => {
      if (isHighlightedCode(node)) return SKIP;
      if (node.tagName !== 'img' || typeof node.properties.src !== 'string') return;
      if (/^data:/i.test(node.properties.src)) {
        if (checkDataImage(node, context)) images.push(node);
      } else if (context.fetcher && context.fetchRemote && /^https?:/i.test(node.properties.src)) {
        node.properties.src = unescapeIpv6Host(node.properties.src);
        images.push(node);
      }
    });
    if (!context.fetcher) return;
    let budget = maxBytesPerDocument;
    const fetchOne = async (image: Element, position: number) => {
      const src = image.properties.src as string;
      if (position >= maxImagesPerDocument) {
        context.failures.push({ src, reason: `more than ${maxImagesPerDocument} remote images in one document` });
        return;
      }
      try {
        const fetched = await context.fetcher!.fetch(src, context.signal);
        budget -= fetched.link?.byteLength ?? fetched.bytes.length;
        if (budget < 0) throw new RemoteImageRefused(`the document's images exceed ${maxBytesPerDocument} bytes`);
        if (fetched.link) {
          image.properties.src = fetched.link.url;
          linkedImages.add(image);
        } else {
          image.properties.src = toDataUri(fetched);
        }
        // An SVG drawn at twice its size keeps the size it would have had, unless the author gave one.
        if (fetched.cssWidth && image.properties.width === undefined && image.properties.height === undefined) image.properties.width = fetched.cssWidth;
      } catch (error) {
        if (context.signal?.aborted) throw context.signal.reason;
        context.failures.push({ src: src.slice(0, 100), reason: error instanceof Error ? error.message : String(error) });
        // An SVG that was not drawn as PNG is not shown as SVG either: the placeholder step draws its alt text.
        if (src.startsWith('data:')) image.properties.src = 'refused:';
      }
    };
    let next = 0;
    const worker = async () => {
      while (next < images.length) {
        const position = next++;
        await fetchOne(images[position]!, position);
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallelFetches, images.length) }, worker));
  };
}

/**
 * Checks a `data:` image by its bytes: a type the page draws is kept (under the type its bytes
 * have), an SVG is to be drawn by the fetcher (returns true), anything else becomes a placeholder.
 */
function checkDataImage(image: Element, context: RemoteImageContext): boolean {
  const src = image.properties.src as string;
  const refuse = (reason: string) => {
    context.failures.push({ src: src.slice(0, 100), reason });
    // Not a data:image/ URL any more: the placeholder step draws it as its alt text.
    image.properties.src = 'refused:';
    return false;
  };
  const decoded = decodeDataUrl(src);
  if (!decoded) return refuse('the data: URL cannot be decoded');
  let sniffed: FetchedImage;
  try {
    sniffed = sniffImage(decoded.bytes, decoded.declared);
  } catch (error) {
    return refuse((error as Error).message);
  }
  if (sniffed.mimeType === 'image/svg+xml') return context.fetcher ? true : refuse('SVG images are drawn by the server, which is not available here');
  image.properties.src = toDataUri(sniffed);
  return false;
}
