// GET /api/themes/:theme/thumbnail.webp?mode=<mode>: a small image of one sample card in a theme
// and mode, rendered by the real renderer, for the web page's theme gallery and its mode swatches.
// The set of themes is fixed while the process runs, so each image is rendered once and kept;
// renders run one at a time so the gallery never takes more than one render page from API users.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { renderMarkdown } from '../cards/markdown/render-markdown.js';
import { renderCards } from '../cards/render/render-cards.js';
import type { Renderer } from '../cards/render/renderer.js';
import type { ThemeRegistry } from '../cards/themes/registry.js';
import type { Theme } from '../cards/themes/theme-file.js';

export interface ThumbnailDeps {
  themes: ThemeRegistry;
  renderer: Renderer;
}

/** A short document that shows a theme's headings, text, emphasis, list, quote and code. */
export const thumbnailMarkdown = [
  '# 知识卡片 Cards',
  '',
  'Markdown in, **beautiful** cards out. 写下来，一键成图 ✨',
  '',
  '## Why',
  '',
  '- Pick a ==theme== and a mode',
  '- Share the `images`',
  '',
  '> Simple is beautiful.',
].join('\n');

const thumbnailRenderTimeoutMs = 20_000;

interface Thumbnail {
  data: Buffer;
  etag: string;
}

export function registerThemeThumbnailRoute(app: FastifyInstance, deps: ThumbnailDeps): void {
  const cache = new Map<string, Promise<Thumbnail>>();
  let queue: Promise<unknown> = Promise.resolve();

  const render = (theme: Theme, mode: string | undefined): Promise<Thumbnail> => {
    const job = queue.then(async () => {
      const { html } = await renderMarkdown(thumbnailMarkdown);
      const [image] = await deps.renderer.run(AbortSignal.timeout(thumbnailRenderTimeoutMs), (page) =>
        renderCards(page, {
          theme,
          mode,
          width: 440,
          height: 586,
          // Shown about 100 px wide, so half scale is sharp even on a 2× screen.
          scale: 0.5,
          format: 'webp',
          splitMode: 'noSplit',
          overHiddenMode: true,
          contentHtml: html,
        }),
      );
      const data = image!.data;
      return { data, etag: `"${createHash('sha256').update(data).digest('base64url').slice(0, 16)}"` };
    });
    queue = job.catch(() => undefined);
    return job;
  };

  app.get<{ Params: { theme: string }; Querystring: { mode?: string } }>(
    '/api/themes/:theme/thumbnail.webp',
    {
      schema: {
        params: { type: 'object', properties: { theme: { type: 'string', maxLength: 64 } } },
        querystring: { type: 'object', properties: { mode: { type: 'string', maxLength: 64 } } },
      },
    },
    async (request, reply) => {
      const mode = request.query.mode || undefined;
      // resolve() answers 400 naming the accepted values; the cache key is what it accepted, so
      // no request can grow the cache beyond one entry per theme and mode.
      const { theme, mode: resolvedMode } = deps.themes.resolve(request.params.theme, mode);
      const key = `${theme.id}\n${resolvedMode ?? ''}`;
      let thumbnail = cache.get(key);
      if (!thumbnail) {
        thumbnail = render(theme, resolvedMode);
        cache.set(key, thumbnail);
        thumbnail.catch(() => cache.delete(key));
      }
      const { data, etag } = await thumbnail;
      reply.header('ETag', etag);
      reply.header('Cache-Control', 'public, max-age=3600');
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
      return reply.type('image/webp').send(data);
    },
  );
}
