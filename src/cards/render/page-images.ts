// The images a request's cards show (fetched, or drawn from SVGs and diagrams), handed to its
// render page by address instead of inlined in the markup as data: URLs. Fifty drawings inlined
// made 9 MB of HTML that the service's event loop copied and sent to the page in one DevTools
// message, holding /health for half a second; by address, the page asks for each image on its own
// (render-page.ts answers from here) and the markup stays small.
import { createHash } from 'node:crypto';
import type { ImageLinker } from '../markdown/answer-asks.js';

/** Where, on the render page's own origin, the images of its request are. */
const imagesPath = '/request-images/';

/** An image's id, here and at the previews' own addresses (src/http/preview-images.ts): the SHA-1 of its bytes. */
export const imageId = (bytes: Buffer): string => createHash('sha1').update(bytes).digest('hex');

interface PageImage {
  mimeType: string;
  bytes: Buffer;
}

/**
 * One request's images: linked while its Markdown becomes HTML, served while its cards are drawn.
 * An image's id is its SHA-1, as the previews' own addresses (src/http/preview-images.ts).
 */
export class PageImages {
  private readonly byId = new Map<string, PageImage>();

  /**
   * `published`: where the markup's reader will load the images from (a preview shown as markup,
   * whose tables a render page fits all the same); the page is answered at that address too.
   */
  constructor(private readonly published?: ImageLinker) {}

  /** Keeps an image and answers its address: the published one, or a path on the render page's origin. */
  readonly link: ImageLinker = async (image) => {
    const id = imageId(image.bytes);
    this.byId.set(id, { mimeType: image.mimeType, bytes: image.bytes });
    return this.published ? this.published(image) : `${imagesPath}${id}`;
  };

  /** The image at `pathname` on the render page's origin (its last segment is the id), when it is one of this request's. */
  find(pathname: string): PageImage | undefined {
    return this.byId.get(pathname.slice(pathname.lastIndexOf('/') + 1));
  }
}
