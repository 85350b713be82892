// The one operation of the product, stage by stage: a normalized request → its theme → Markdown
// as sanitized HTML → cards laid out and captured in a warm Chromium page → (for generate) stored.
// createCards (index.ts) wires these stages once; every front end calls them through it.
import type { Logger } from './logger.js';
import type { ImageSource } from './images/remote-image-fetcher.js';
import { renderMarkdownInWorker } from './markdown/markdown-pool.js';
import { renderCards, type RenderedImage } from './render/render-cards.js';
import type { Renderer } from './render/renderer.js';
import type { CardRequest } from './request/schema.js';
import type { PendingDeletions } from './storage/pending-deletions.js';
import { storeAll, type StoredImage } from './storage/store-all.js';
import type { Storage } from './storage/storage.js';
import type { ThemeChoice, ThemeRegistry } from './themes/registry.js';

export interface PipelineParts {
  renderer: Renderer;
  themes: ThemeRegistry;
  log: Logger;
  /** Fetches http(s) images for cards (REMOTE_IMAGES); without it remote images are placeholders. */
  remoteImages?: ImageSource;
}

export interface StoreParts {
  storage: Storage;
  log: Logger;
  /** Retries deleting the objects of failed requests that the store did not let go at once. */
  pendingDeletions?: PendingDeletions;
}

/**
 * What a request produced. `complete` is false when a remote image could not be fetched and was
 * drawn as a placeholder: the same request may well succeed later, so such a result is not cached.
 */
export interface Rendered<Image> {
  images: Image[];
  complete: boolean;
}

/** The document of a request as card content: its theme and its sanitized HTML. */
export interface PreparedContent extends ThemeChoice {
  html: string;
  complete: boolean;
}

/** Resolves the theme (a 400 for an unknown one) and turns the Markdown into sanitized HTML. */
export async function prepareContent(parts: PipelineParts, request: CardRequest, signal: AbortSignal): Promise<PreparedContent> {
  const { theme, mode } = parts.themes.resolve(request.theme, request.themeMode);
  // In a worker thread of the Markdown pool (markdown/markdown-pool.ts), never on the event loop.
  const { html, imageFailures } = await renderMarkdownInWorker(request.markdown, { mdxMode: request.mdxMode, remoteImages: parts.remoteImages, signal });
  for (const failure of imageFailures) parts.log.info(failure, 'remote image drawn as a placeholder');
  return { theme, mode, html, complete: imageFailures.length === 0 };
}

/** Renders the cards of one request, in card order, without storing them. */
export async function renderRequest(parts: PipelineParts, request: CardRequest, signal: AbortSignal): Promise<Rendered<RenderedImage>> {
  const { theme, mode, html, complete } = await prepareContent(parts, request, signal);
  const images = await parts.renderer.run(signal, (page) => renderCards(page, { ...request, theme, mode, contentHtml: html }));
  return { images, complete };
}

/** Renders the cards of one request and stores them; on any failure nothing stays stored. */
export async function generateRequest(
  parts: PipelineParts & StoreParts,
  request: CardRequest,
  signal: AbortSignal,
): Promise<Rendered<StoredImage>> {
  const { images, complete } = await renderRequest(parts, request, signal);
  return { images: await storeAll(parts, images, signal), complete };
}
