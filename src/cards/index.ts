// The core of cardwright: `createCards()` wires the stages of the one card pipeline once (themes,
// Markdown, the render pool, remote images, storage, the render cache) and exposes the operations
// every front end calls: the HTTP routes, the CLI, the MCP server, the gallery script and the
// benchmark. Nothing here knows about HTTP; failures are CardErrors (errors.ts).
//
//   const cards = createCards({ settings, log, storage });
//   const { request } = checkRequest(body);         // or normalizeRequest() after a schema check
//   await cards.render(request, signal);            // images in memory
//   await cards.generate(request, signal);          // images stored, with their URLs
//   await cards.preview(request, signal);           // what the editor shows
import type { Logger } from './logger.js';
import { CachedImageFetcher, type ImageCacheOptions } from './images/cached-image-fetcher.js';
import { RemoteImageFetcher, type RemoteImagesPolicy } from './images/remote-image-fetcher.js';
import type { PipelineParts, Rendered, Stored } from './pipeline.js';
import type { Preview, PreviewMeter } from './preview.js';
import type { ImageLinker } from './markdown/answer-asks.js';
import type { CoverRequest } from './request/cover-schema.js';
import { codeFingerprint } from './code-fingerprint.js';
import { RenderCache, rendererVersion, type CachedAnswer, type SharedAnswerIndex } from './render-cache.js';
import type { EarlyBrowser } from './render/early-browser.js';
import type { RenderedImage } from './render/render-cards.js';
import type { RenderLimits } from './render/render-limits.js';
import { Renderer, type RenderObserver } from './render/renderer.js';
import { buildShellDocument, type RenderShell } from './render/shell-document.js';
import { resolveRequest } from './request/resolve.js';
import type { CardRequest } from './request/schema.js';
import { PendingDeletions } from './storage/pending-deletions.js';
import { savedRequestKey } from './storage/saved-request.js';
import type { StoredImage } from './storage/store-all.js';
import type { Storage } from './storage/storage.js';
import { loadThemes, type ThemeRegistry } from './themes/registry.js';
import type { ThemeThumbnails, Thumbnail } from './thumbnails.js';
import { SvgRasterizer } from './images/svg-raster.js';
import { MarkdownPool, markdownPoolOptions } from './markdown/markdown-pool.js';
import { packageVersion } from '../version.js';

export { normalizeRequest } from './request/normalize.js';
export type { CardRequest } from './request/schema.js';
export { CardError, type CardErrorKind } from './errors.js';
import { CardError } from './errors.js';
export type { Preview, PreviewCard, PreviewMeter } from './preview.js';
export type { ImageLinker } from './markdown/answer-asks.js';
export type { RenderedImage } from './render/render-cards.js';
export type { StoredImage } from './storage/store-all.js';

/** The settings the core reads; src/config.ts reads and checks them from the environment. */
export interface CardsSettings {
  chromiumPath?: string;
  renderConcurrency: number;
  queueMax: number;
  /** Render pages kept for previews, besides renderConcurrency, and previews that may wait for one. */
  previewRenderConcurrency?: number;
  previewQueueMax?: number;
  browserRestartAfter: number;
  browserProbeIntervalMs: number;
  /** How long a probe may go unanswered before the browser is killed. */
  browserProbeTimeoutMs?: number;
  /** Longest a request may wait for and hold a render page, whatever its signal does (see PagePool). */
  requestTimeoutMs?: number;
  themesDir?: string;
  remoteImages: RemoteImagesPolicy;
  remoteImagesAllowlist: string[];
  /** Identical repeated generate requests are answered from memory; absent: never. */
  renderCache?: { maxEntries: number; ttlMs: number; maxBytes: number };
  /** Remote images of previews are remembered, as the editor asks on almost every keystroke. */
  previewImageCache: ImageCacheOptions;
  /** How long one theme thumbnail may take to render. */
  thumbnailTimeoutMs: number;
  /** Worker threads that turn Markdown into HTML (markdown/markdown-pool.ts). */
  markdownThreads: number;
  /** CPU time one document may use to become HTML, in ms; beyond, a 400 naming where it was. */
  markdownCpuLimitMs: number;
  /** Device pixels, bytes and drawing time one request may cost (render/render-limits.ts); its defaults when absent. */
  renderLimits?: RenderLimits;
}

export interface CardsObserver extends RenderObserver {
  /** A generate or cover request failed because the store refused or did not answer (502 storage_failed). */
  storageFailed(): void;
}

export interface CardsOptions {
  settings: CardsSettings;
  log: Logger;
  /** Where generate() stores images; may still be connecting. Without it, generate() is unavailable. */
  storage?: Promise<Storage>;
  /** Told about queue waits, renders, browser restarts and failed stores (the service's metrics). */
  observer?: CardsObserver;
  /** The render cache's entries shared with other replicas (REDIS_URL); the bytes stay in the store. */
  sharedCache?: SharedAnswerIndex;
  /**
   * Markdown workers opened with these settings beforehand (the service opens them while it still
   * imports itself, http/run-server.ts); the core closes them with itself. Without it, the core
   * opens its own.
   */
  markdownPool?: MarkdownPool;
  /**
   * A browser launched beforehand with these settings (http/run-server.ts launches one while it
   * still imports the service), the first the requests' render pages open on; the core closes it.
   */
  firstBrowser?: EarlyBrowser;
}

export interface Generated extends Stored {
  /** True when the images were stored by an identical earlier request and not rendered again. */
  fromCache: boolean;
}

export interface Cards {
  readonly themes: ThemeRegistry;
  /** The render pool, for health checks and metrics. */
  readonly renderer: Renderer;
  /** The render pages' document (base and theme CSS, the faces of common text); the web page's preview frame uses it. */
  readonly shell: RenderShell;
  /** Operations under way (generate, preview, render, covers, thumbnails), whatever their stage: a stopping service waits for them. */
  readonly operationsInProgress: number;
  /** Launches the browser and warms a page and the Markdown pipeline, so the first request is fast. */
  start(): Promise<void>;
  /** The web page was opened: the previews' own browser opens once the service is quiet (Renderer.expectPreviews). */
  expectPreviews(): void;
  /** What the editor shows; `meter` is told its cost as it becomes known (see PreviewMeter). */
  /**
   * With `linkImages`, the preview's images (those of its markup, and split cards captured as
   * images) are kept by it and shown by the address it answers, instead of inlined as data: URLs.
   */
  preview(request: CardRequest, signal: AbortSignal, meter?: PreviewMeter, linkImages?: ImageLinker): Promise<Preview>;
  render(request: CardRequest, signal: AbortSignal): Promise<Rendered<RenderedImage>>;
  /**
   * Renders and stores. `cacheScope` names whose cache entries this request may reuse (the API
   * key), so one tenant never learns what another rendered; without it nothing is cached.
   */
  generate(request: CardRequest, signal: AbortSignal, options?: { cacheScope?: string }): Promise<Generated>;
  thumbnail(theme: string, mode: string | undefined): Promise<Thumbnail>;
  /** `count` cover designs of a title and keywords in the request's theme (cover/cover-designs.ts), in memory. */
  renderCover(request: CoverRequest, signal: AbortSignal): Promise<Rendered<RenderedImage>>;
  /** The same covers, stored like cards. */
  cover(request: CoverRequest, signal: AbortSignal): Promise<Rendered<StoredImage>>;
  close(): Promise<void>;
}

export function createCards(options: CardsOptions): Cards {
  const { settings, log } = options;
  const themes = loadThemes(settings.themesDir);
  for (const problem of themes.problems) log.error({ file: problem.file }, `custom theme skipped: ${problem.message}`);
  const shell = buildShellDocument(themes);
  // Operations under way, whatever their stage: the render pages warm spares only when there are none.
  let inProgress = 0;
  const counted = async <T>(work: () => Promise<T>): Promise<T> => {
    inProgress += 1;
    try {
      return await work();
    } finally {
      inProgress -= 1;
    }
  };
  const renderer = new Renderer({
    requestsInProgress: () => inProgress > 0,
    shell,
    concurrency: settings.renderConcurrency,
    queueMax: settings.queueMax,
    previewConcurrency: settings.previewRenderConcurrency,
    previewQueueMax: settings.previewQueueMax,
    requestTimeoutMs: settings.requestTimeoutMs,
    chromiumPath: settings.chromiumPath,
    firstBrowser: options.firstBrowser,
    restartAfter: settings.browserRestartAfter,
    probeIntervalMs: settings.browserProbeIntervalMs,
    probeTimeoutMs: settings.browserProbeTimeoutMs,
    log,
    observer: options.observer,
  });
  // Markdown becomes HTML in worker threads, never on the event loop that answers requests.
  const markdownPool = options.markdownPool ?? new MarkdownPool(markdownPoolOptions(settings));
  const remoteImages = new RemoteImageFetcher({ policy: settings.remoteImages, allowlist: settings.remoteImagesAllowlist });
  const svgImages = new SvgRasterizer();
  const parts: PipelineParts = {
    renderer,
    themes,
    log,
    markdown: markdownPool,
    svgImages,
    remoteImages,
    renderLimits: settings.renderLimits,
  };
  // The preview fetches under the same policy, but keeps images a while: it asks on every keystroke.
  const previewParts: PipelineParts = { ...parts, remoteImages: new CachedImageFetcher(remoteImages, settings.previewImageCache) };
  let stages: Promise<typeof import('./stages.js')> | undefined;
  const loadStages = () => (stages ??= import('./stages.js'));
  let thumbnails: ThemeThumbnails | undefined;
  const cache =
    settings.renderCache && new RenderCache({ ...settings.renderCache, rendererVersion: rendererVersion(packageVersion, shell.html, codeFingerprint()), shared: options.sharedCache });

  const store = options.storage?.then((storage) => ({ storage, log, pendingDeletions: new PendingDeletions(storage, log) }));
  // A store that fails to connect fails generate(), not the process: the error surfaces per request.
  store?.catch(() => undefined);

  return {
    themes,
    renderer,
    shell,
    get operationsInProgress() {
      return inProgress;
    },

    async start() {
      // Chromium is launched first; the stages load and every Markdown worker loads the
      // pipeline's core while it starts. A warm-up document is bounded by the workers' CPU budget
      // like any other. Once a worker has its core, it goes on to what loads on first use
      // (Shiki's grammars, KaTeX, MDX), still while Chromium starts, so a code block or a formula
      // right after ready does not pay for them; readiness does not wait for that, and the workers
      // run at a lower priority than the thread and the browser it waits for (markdown-worker.ts).
      await Promise.all([renderer.start(), loadStages(), markdownPool.warmUp().then(() => markdownPool.warmLazyParts())]);
    },

    expectPreviews: () => renderer.expectPreviews(),

    // Each operation resolves the request's theme once, here: the stages and the cache key read that.
    preview: (request, signal, meter, linkImages) =>
      counted(async () => (await loadStages()).previewRequest(previewParts, resolveRequest(themes, request), signal, meter, linkImages)),

    render: (request, signal) => counted(async () => (await loadStages()).renderRequest(parts, resolveRequest(themes, request), signal)),

    generate: (request, signal, options_ = {}) => counted(() => countStorageFailures(generate(request, signal, options_))),

    thumbnail: (theme, mode) =>
      counted(async () => {
        thumbnails ??= new (await loadStages()).ThemeThumbnails(parts, settings.thumbnailTimeoutMs);
        return thumbnails.get(theme, mode);
      }),

    renderCover: (request, signal) => counted(async () => (await loadStages()).renderCover(parts, request, signal)),

    cover: (request, signal) =>
      counted(async () => {
        if (!store) throw new Error('createCards() was given no storage, so it cannot store covers; use renderCover().');
        return countStorageFailures((await loadStages()).generateCover({ ...parts, ...(await store) }, request, signal));
      }),

    async close() {
      svgImages.close();
      await Promise.all([renderer.close(), markdownPool.close()]);
      const opened = await store?.catch(() => undefined);
      await opened?.pendingDeletions.close();
    },
  };

  async function countStorageFailures<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      if (error instanceof CardError && error.kind === 'storage_failed') options.observer?.storageFailed();
      throw error;
    }
  }

  async function generate(request: CardRequest, signal: AbortSignal, { cacheScope }: { cacheScope?: string }): Promise<Generated> {
    if (!store) throw new Error('createCards() was given no storage, so it cannot generate; use render().');
    const { generateRequest } = await loadStages();
    const storeParts = { ...parts, ...(await store) };
    const resolved = resolveRequest(themes, request);
    if (!cache || cacheScope === undefined) return { ...(await generateRequest(storeParts, resolved, signal)), fromCache: false };

    // The key takes the resolved theme, so an alias, an omitted default mode, or a mode the theme
    // does not have (drawn in the default one) hits the same entry.
    const { theme, mode, warnings } = resolved;
    const key = cache.keyOf({ ...request, theme: theme.id, themeMode: mode }, cacheScope);
    const cached = await cache.get(key, (answer) => allStored(storeParts.storage, answer));
    if (cached) {
      const { contentWarnings = [], ...answer } = cached;
      return { ...answer, complete: true, warnings: [...warnings, ...contentWarnings], fromCache: true };
    }
    const generated = await generateRequest(storeParts, resolved, signal);
    // A card with a placeholder for an image that failed to load is not remembered: the image
    // may load next time.
    if (generated.complete) {
      const contentWarnings = generated.warnings.filter((warning) => !warnings.includes(warning));
      await cache.set(key, { images: generated.images, savedRequestId: generated.savedRequestId, ...(contentWarnings.length > 0 ? { contentWarnings } : {}) });
    }
    return { ...generated, fromCache: false };
  }
}

/** Whether every object of a cached answer (its images and its saved request) is still in the store. */
async function allStored(storage: Storage, answer: CachedAnswer): Promise<boolean> {
  const keys = [...answer.images.map((image) => image.fileName), savedRequestKey(answer.savedRequestId)];
  const found = await Promise.all(keys.map((key) => storage.exists(key)));
  return found.every(Boolean);
}
