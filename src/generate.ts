// The service's one operation, independent of HTTP: Markdown and options in, stored images out.
// The HTTP route, and any other front end, call this so every path renders the same way.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from './errors.js';
import { renderMarkdown } from './markdown/render-markdown.js';
import type { ImageFormat } from './render/render-page.js';
import { renderCards, type RenderedImage, type SplitMode } from './render/render-cards.js';
import type { Renderer } from './render/renderer.js';
import { contentTypeOf, type Storage } from './storage/storage.js';
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

export interface StoredImage {
  url: string;
  fileName: string;
  width: number;
  height: number;
  size: number;
}

export interface GenerateDeps {
  renderer: Renderer;
  themes: ThemeRegistry;
  storage: Storage;
  log: FastifyBaseLogger;
}

/** What rendering alone needs: front ends without a store (the CLI) call renderImages with it. */
export type RenderDeps = Pick<GenerateDeps, 'renderer' | 'themes'>;

/** File extension of each image format. */
export const extensionOf: Record<ImageFormat, string> = { png: 'png', jpeg: 'jpg', webp: 'webp' };

/** Renders the cards of one request and stores them; on any failure nothing stays stored. */
export async function generateImages(deps: GenerateDeps, options: GenerateOptions, signal: AbortSignal): Promise<StoredImage[]> {
  const images = await renderImages(deps, options, signal);
  return storeAll(deps, images, signal);
}

/** Renders the cards of one request, in card order, without storing them. */
export async function renderImages(deps: RenderDeps, options: GenerateOptions, signal: AbortSignal): Promise<RenderedImage[]> {
  const { theme, mode } = deps.themes.resolve(options.theme, options.themeMode);
  const { html } = await renderMarkdown(options.markdown);
  return deps.renderer.run(signal, (page) =>
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
}

/**
 * Object names are `screenshots/<ms since epoch>_<96 random bits>.<ext>`: unguessable, so one URL
 * never reveals another, and time-ordered for operators browsing the bucket.
 */
export function newFileName(format: ImageFormat): string {
  return `screenshots/${Date.now()}_${randomBytes(12).toString('hex')}.${extensionOf[format]}`;
}

async function storeAll(deps: GenerateDeps, images: RenderedImage[], signal: AbortSignal): Promise<StoredImage[]> {
  const stored: StoredImage[] = images.map((image) => {
    const fileName = newFileName(image.format);
    return { url: deps.storage.url(fileName), fileName, width: image.width, height: image.height, size: image.data.length };
  });
  const results = await Promise.allSettled(
    images.map((image, index) => deps.storage.put(stored[index]!.fileName, image.data, contentTypeOf[image.format], signal)),
  );
  const failure = results.find((result) => result.status === 'rejected');
  if (failure) {
    // All-or-nothing: a request that fails leaves no partial set of images behind.
    await Promise.all(
      stored.map((image) =>
        deps.storage.delete(image.fileName).catch((error) => deps.log.warn({ err: error, fileName: image.fileName }, 'could not delete a partial upload')),
      ),
    );
    if (signal.aborted) throw signal.reason;
    throw new AppError('storage_failed', 'The image store did not accept the images; nothing was stored. Retry later.', {
      cause: (failure as PromiseRejectedResult).reason,
    });
  }
  return stored;
}
