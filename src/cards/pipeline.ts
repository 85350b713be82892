// The one operation of the product, stage by stage: a normalized request → its theme → Markdown
// as sanitized HTML → cards laid out and captured in a warm Chromium page → (for generate) stored.
// createCards (index.ts) wires these stages once; every front end calls them through it.
import type { Logger } from './logger.js';
import { illegibleDiagramWarning } from './diagrams/legibility.js';
import type { ImageSource } from './images/remote-image-fetcher.js';
import type { SvgRasterizer } from './images/svg-raster.js';
import type { ImageLinker } from './markdown/answer-asks.js';
import type { MarkdownPool } from './markdown/markdown-pool.js';
import { cardGeometry } from './render/card-markup.js';
import { PageImages } from './render/page-images.js';
import { renderCards, type RenderedImage } from './render/render-cards.js';
import type { RenderLimits } from './render/render-limits.js';
import type { Renderer, RenderLane } from './render/renderer.js';
import type { ResolvedRequest } from './request/resolve.js';
import type { CreatorOptions } from './request/schema.js';
import type { Watermark } from './request/watermark.js';
import { withAvatar, withWatermarkImage } from './remote-pictures.js';
import type { PendingDeletions } from './storage/pending-deletions.js';
import { savedRequestFile } from './storage/saved-request.js';
import { storeAll, type StoredImage } from './storage/store-all.js';
import type { Storage } from './storage/storage.js';
import type { ThemeChoice, ThemeRegistry } from './themes/registry.js';

/** What the stages run on: the objects of one core (createCards), each with that core's own settings. */
export interface PipelineParts {
  renderer: Renderer;
  themes: ThemeRegistry;
  log: Logger;
  /** The worker threads that turn Markdown into HTML. */
  markdown: MarkdownPool;
  /** Draws SVG images (remote, data: URLs, avatars) as PNG, so many at once per lane. */
  svgImages: SvgRasterizer;
  /** Fetches http(s) images for cards (REMOTE_IMAGES); without it remote images are placeholders. */
  remoteImages?: ImageSource;
  /** Pixels, bytes and time one request may cost the browser; defaultRenderLimits when absent. */
  renderLimits?: RenderLimits;
}

export interface StoreParts {
  storage: Storage;
  log: Logger;
  /** Retries deleting the objects of failed requests that the store did not let go at once. */
  pendingDeletions?: PendingDeletions;
}

/**
 * What a request produced. `complete` is false when a remote image could not be fetched and was
 * drawn as a placeholder, or a diagram ran out of time: the same request may well succeed later,
 * so such a result is not cached.
 */
export interface Rendered<Image> {
  images: Image[];
  complete: boolean;
  /** What was not applied as asked (a themeMode the theme lacks, a split mode weChatMode overrides): told to the client. */
  warnings: string[];
}

/** The document of a request as card content: its theme and its sanitized HTML. */
export interface PreparedContent extends ThemeChoice {
  html: string;
  complete: boolean;
  /** The front matter's cover, signature and closing card, with a remote avatar fetched (or dropped when it could not be). */
  creator?: CreatorOptions;
  /** The request's watermark, with a logo given by address fetched (or dropped when it could not be). */
  watermark?: Watermark;
  /** The CPU time the Markdown took in its worker, in ms, when the pool measured it. */
  markdownCpuMs?: number;
}

export interface PrepareOptions {
  /** The renderer's lane the diagrams are drawn in: the previews draw in their own (see Renderer). */
  lane?: RenderLane;
  /** Told before each image is fetched or drawn (see RenderMarkdownOptions.beforeImage), the avatar and watermark logo too. */
  beforeImage?: () => void | Promise<void>;
  /** Shows the document's fetched and drawn images by address instead of inlining them (MarkdownTaskOptions.linkImages). */
  linkImages?: ImageLinker;
}

/** Turns the Markdown (and its diagrams) into sanitized HTML for the request's resolved theme. */
export async function prepareContent(
  parts: PipelineParts,
  { request, theme, mode, warnings }: ResolvedRequest,
  signal: AbortSignal,
  { lane = 'requests', beforeImage, linkImages }: PrepareOptions = {},
): Promise<PreparedContent> {
  // Mermaid diagrams are drawn for the card they go into: its theme, content size and pixel density.
  const { width: cardWidth, height, deviceScale } = cardGeometry(request.width, request.height, request.scale, request.fontScale);
  // A split card scales a picture taller than itself down to fit; a growing card does not.
  const cardHeight = request.splitMode === 'noSplit' || request.weChatMode ? undefined : height;
  // Unless each section is one clipped card, a diagram too tall for a card may go on over several.
  const sliceable = cardHeight !== undefined && !(request.splitMode === 'hrSplit' && request.overHiddenMode);
  let diagramsComplete = true;
  const diagramWarnings: string[] = [];
  const diagrams = {
    async draw(source: string) {
      const drawn = await parts.renderer.drawDiagram(source, { theme, mode, cardWidth, cardHeight, sliceable, deviceScale }, signal, lane);
      if (!drawn.ok && drawn.transient) {
        diagramsComplete = false;
        parts.log.warn({ reason: drawn.message }, 'diagram drawn as its source');
      }
      const illegible = drawn.ok ? illegibleDiagramWarning(source, drawn.smallestTextPx) : undefined;
      if (illegible) diagramWarnings.push(illegible);
      return drawn;
    },
  };
  // In a worker thread of the Markdown pool (markdown/markdown-pool.ts), never on the event loop;
  // the front matter was read when the request was normalized and is not content.
  const [{ html, imageFailures, cpuMs }, creator, mark] = await Promise.all([
    parts.markdown.render(request.content ?? request.markdown, {
      mdxMode: request.mdxMode,
      hashtags: request.hashtags,
      remoteImages: parts.remoteImages,
      svgImages: parts.svgImages,
      diagrams,
      signal,
      beforeImage,
      lane,
      linkImages,
    }),
    withAvatar(parts, request.creator, { signal, lane, beforeImage }),
    withWatermarkImage(parts, request.watermark, { signal, lane, beforeImage }),
  ]);
  const pictureFailures = [...creator.failures, ...mark.failures];
  for (const failure of [...imageFailures, ...pictureFailures]) parts.log.info(failure, 'remote image drawn as a placeholder');
  const complete = imageFailures.length === 0 && pictureFailures.length === 0 && diagramsComplete;
  return { theme, mode, warnings: [...warnings, ...new Set(diagramWarnings), ...mark.warnings], html, creator: creator.options, watermark: mark.watermark, complete, markdownCpuMs: cpuMs };
}

/** Renders the cards of one request, in card order, without storing them. */
export async function renderRequest(parts: PipelineParts, resolved: ResolvedRequest, signal: AbortSignal): Promise<Rendered<RenderedImage>> {
  const { request } = resolved;
  // The document's images go to the render page by address, not inlined in its markup.
  const shown = new PageImages();
  const { theme, mode, warnings, html, complete, creator, watermark } = await prepareContent(parts, resolved, signal, { linkImages: shown.link });
  const images = await parts.renderer.run(signal, (page) => {
    page.showImages(shown);
    return renderCards(page, { ...request, theme, mode, creator, watermark, contentHtml: html }, parts.renderLimits);
  });
  return { images, complete, warnings };
}

export interface Stored extends Rendered<StoredImage> {
  /** Id of the request saved beside the images (storage/saved-request.ts), for the editor to open. */
  savedRequestId: string;
}

/**
 * Renders the cards of one request and stores them with the request itself (saved with the theme
 * and mode it was drawn in, so the editor opens what the images show); on any failure nothing
 * stays stored.
 */
export async function generateRequest(parts: PipelineParts & StoreParts, resolved: ResolvedRequest, signal: AbortSignal): Promise<Stored> {
  const { images, complete, warnings } = await renderRequest(parts, resolved, signal);
  const { theme, mode } = resolved;
  // As a request body: the front matter (its cover and signature too) stays in the Markdown, where the editor shows it.
  const { creator: _fromFrontMatter, content: _withoutFrontMatter, ...body } = resolved.request;
  const saved = savedRequestFile({ ...body, theme: theme.id, themeMode: mode ?? null });
  return { images: await storeAll(parts, images, signal, [saved]), complete, warnings, savedRequestId: saved.id };
}
