// The service's one operation, independent of HTTP: Markdown and options in, stored images out.
// The HTTP route, and any other front end, call this so every path renders the same way.
import type { FastifyBaseLogger } from 'fastify';
import type { RemoteImageFetcher } from './images/remote-image-fetcher.js';
import { renderMarkdown } from './markdown/render-markdown.js';
import type { ImageFormat } from './render/render-page.js';
import { renderCards, type RenderedImage, type SplitMode } from './render/render-cards.js';
import type { Renderer } from './render/renderer.js';
import type { PendingDeletions } from './storage/pending-deletions.js';
import { storeAll, type StoredImage } from './storage/store-all.js';
import type { Storage } from './storage/storage.js';
import type { ThemeRegistry } from './themes/registry.js';

/** A generation request after validation and defaults (PRODUCT.md §2). */
export interface GenerateOptions {
  markdown: string;
  theme?: string;
  themeMode?: string;
  width: number;
  height: number;
  splitMode: SplitMode;
  mdxMode: boolean;
  overHiddenMode: boolean;
  format: ImageFormat;
  scale: number;
}

export type { StoredImage } from './storage/store-all.js';
export { extensionOf } from './storage/storage.js';

export interface GenerateDeps {
  renderer: Renderer;
  themes: ThemeRegistry;
  storage: Storage;
  log: FastifyBaseLogger;
  /** Retries deleting the objects of failed requests that the store did not let go at once. */
  pendingDeletions?: PendingDeletions;
  /** Fetches http(s) images for cards (REMOTE_IMAGES); without it remote images are placeholders. */
  remoteImages?: RemoteImageFetcher;
}

/** What rendering alone needs: front ends without a store (the CLI) call renderImages with it. */
export type RenderDeps = Pick<GenerateDeps, 'renderer' | 'themes'> & Partial<Pick<GenerateDeps, 'remoteImages' | 'log'>>;

/**
 * What a request produced. `complete` is false when a remote image could not be fetched and was
 * drawn as a placeholder: the same request may well succeed later, so such a result is not cached.
 */
export interface Generated<Image> {
  images: Image[];
  complete: boolean;
}

/** Renders the cards of one request and stores them; on any failure nothing stays stored. */
export async function generateImages(deps: GenerateDeps, options: GenerateOptions, signal: AbortSignal): Promise<Generated<StoredImage>> {
  const { images, complete } = await renderImages(deps, options, signal);
  return { images: await storeAll(deps, images, signal), complete };
}

/** Renders the cards of one request, in card order, without storing them. */
export async function renderImages(deps: RenderDeps, options: GenerateOptions, signal: AbortSignal): Promise<Generated<RenderedImage>> {
  const { theme, mode } = deps.themes.resolve(options.theme, options.themeMode);
  const { html, imageFailures } = await renderMarkdown(options.markdown, { mdxMode: options.mdxMode, remoteImages: deps.remoteImages, signal });
  for (const failure of imageFailures) deps.log?.info(failure, 'remote image drawn as a placeholder');
  const images = await deps.renderer.run(signal, (page) =>
    renderCards(page, {
      theme,
      mode,
      width: options.width,
      height: options.height,
      scale: options.scale,
      format: options.format,
      splitMode: options.splitMode,
      overHiddenMode: options.overHiddenMode,
      contentHtml: html,
    }),
  );
  return { images, complete: imageFailures.length === 0 };
}
