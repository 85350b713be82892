// Turns every http(s) <img> of the sanitized tree into a `data:` URI fetched by the server through
// the SSRF guard, so the render page (which has no network) can draw it. An image that could not
// be fetched keeps its URL and is drawn as a placeholder with its alt text by the next step.
import type { Element, Root } from 'hast';
import type { VFile } from 'vfile';
import { visit } from 'unist-util-visit';
import { RemoteImageRefused, toDataUri, type ImageSource } from '../images/remote-image-fetcher.js';

/** Per-document limits, so one request cannot make the server fetch without end. */
const maxImagesPerDocument = 50;
const maxBytesPerDocument = 40 * 1024 * 1024;
const parallelFetches = 4;

export interface RemoteImageContext {
  fetcher?: ImageSource;
  signal?: AbortSignal;
  /** Why each image that was not inlined failed, for the operator's log. */
  failures: { src: string; reason: string }[];
}

declare module 'vfile' {
  interface DataMap {
    remoteImages: RemoteImageContext;
  }
}

export function rehypeInlineRemoteImages() {
  return async (tree: Root, file: VFile) => {
    const context = file.data.remoteImages;
    if (!context?.fetcher) return;
    const images: Element[] = [];
    visit(tree, 'element', (node: Element) => {
      if (node.tagName === 'img' && typeof node.properties.src === 'string' && /^https?:/i.test(node.properties.src)) images.push(node);
    });
    let budget = maxBytesPerDocument;
    const fetchOne = async (image: Element, position: number) => {
      const src = image.properties.src as string;
      if (position >= maxImagesPerDocument) {
        context.failures.push({ src, reason: `more than ${maxImagesPerDocument} remote images in one document` });
        return;
      }
      try {
        const fetched = await context.fetcher!.fetch(src, context.signal);
        budget -= fetched.bytes.length;
        if (budget < 0) throw new RemoteImageRefused(`the document's images exceed ${maxBytesPerDocument} bytes`);
        image.properties.src = toDataUri(fetched);
      } catch (error) {
        if (context.signal?.aborted) throw context.signal.reason;
        context.failures.push({ src, reason: error instanceof Error ? error.message : String(error) });
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
