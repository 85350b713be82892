// POST /api/preview: the live preview of the web page. Takes the body of POST /api/generate and
// answers with the HTML of every card, built by the same pipeline as the images (Markdown →
// sanitized HTML → card markup, remote images fetched by the server under REMOTE_IMAGES), so the
// page shows exactly what Generate will render. No key is needed to look: nothing is stored, and
// every client has a work budget (see PreviewBudget).
import type { FastifyInstance } from 'fastify';
import { renderMarkdown } from '../cards/markdown/render-markdown.js';
import { cardMarkup } from '../cards/render/card-markup.js';
import { renderCards } from '../cards/render/render-cards.js';
import type { Renderer } from '../cards/render/renderer.js';
import type { ImageSource } from '../cards/images/remote-image-fetcher.js';
import type { ThemeRegistry } from '../cards/themes/registry.js';
import { GenerateBody, type GenerateBodyInput } from '../cards/request/schema.js';
import { withDefaults } from './generate-route.js';
import { PreviewBudget } from './preview-budget.js';
import { requestDeadline } from './request-deadline.js';

export interface PreviewRouteDeps {
  themes: ThemeRegistry;
  renderer: Renderer;
  requestTimeoutMs: number;
  /** Remote images, through the same guard as Generate's and remembered between previews. */
  previewImages?: ImageSource;
}

/**
 * One card of the preview: its markup, or (when only the browser can paginate) its image, a
 * data: URL drawn `width`×`height` CSS px (the image itself has up to twice that for sharp screens).
 */
export type PreviewCard = { html: string } | { image: string; width: number; height: number };

/** Split previews are captured at the request's scale, but no finer than a 2× screen shows. */
const maxPreviewScale = 2;

/**
 * Budget: a 2,000-character document costs 2 tokens; at 20 tokens/s a typist never waits, while
 * documents at the 100,000-character limit (about 0.5 s of CPU each here) pass about once in 2.5 s.
 */
const charactersPerToken = 2000;

/** Each remote image asked for costs a token more (fetched at most once a few minutes; see CachedImageFetcher). */
const remoteImagePattern = /!\[[^\]]*\]\(\s*<?https?:|<img\b[^>]*\bsrc\s*=\s*["']?https?:/gi;
const maxRemoteImagesCharged = 50;

export function registerPreviewRoute(app: FastifyInstance, deps: PreviewRouteDeps): void {
  const budget = new PreviewBudget({ burst: 60, refillPerSecond: 20 });
  app.post<{ Body: GenerateBodyInput | undefined }>('/api/preview', { schema: { body: GenerateBody } }, async (request, reply) => {
    const started = performance.now();
    const options = withDefaults(request.body ?? {});
    const paginated = options.splitMode !== 'noSplit';
    // Paginating runs in the browser and costs a render page, so it is charged like a big document.
    const remoteImages = Math.min(maxRemoteImagesCharged, options.markdown.match(remoteImagePattern)?.length ?? 0);
    budget.spend(request.ip, 1 + options.markdown.length / charactersPerToken + remoteImages + (paginated ? 5 : 0));

    const { theme, mode } = deps.themes.resolve(options.theme, options.themeMode);
    const deadline = requestDeadline(reply, deps.requestTimeoutMs);
    const { html } = await renderMarkdown(options.markdown, { mdxMode: options.mdxMode, remoteImages: deps.previewImages, signal: deadline });
    let cards: PreviewCard[];
    if (!paginated) {
      // The markup renderCards lays out and captures for a noSplit request, built without the browser.
      cards = [{ html: cardMarkup({ theme, mode, width: options.width, height: options.height, fixedHeight: options.overHiddenMode, contentHtml: html }) }];
    } else {
      // Split cards exist only after the browser has measured the content: show what it renders.
      const scale = Math.min(options.scale, maxPreviewScale);
      const images = await deps.renderer.run(deadline, (page) =>
        renderCards(page, { ...options, theme, mode, scale, format: 'webp', contentHtml: html }),
      );
      cards = images.map((image) => ({
        image: `data:image/webp;base64,${image.data.toString('base64')}`,
        width: image.width / scale,
        height: image.height / scale,
      }));
    }
    reply.header('Server-Timing', `preview;dur=${(performance.now() - started).toFixed(1)}`);
    reply.header('Cache-Control', 'no-store');
    return { cards, theme: theme.id, themeMode: mode ?? null, width: options.width, height: options.height };
  });
}
