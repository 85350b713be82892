// A small image of one sample card per theme and mode, rendered by the real renderer, for the web
// page's theme gallery and its mode swatches. The set of themes is fixed while the process runs,
// so each image is rendered once and kept; renders run one at a time so the gallery never takes
// more than one render page from API users.
import { createHash } from 'node:crypto';
import { renderRequest, type PipelineParts } from './pipeline.js';
import { normalizeRequest } from './request/normalize.js';
import { timeLimit } from './deadlines.js';
import type { ThemeChoice } from './themes/registry.js';

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

export interface Thumbnail {
  /** A WebP image. */
  data: Buffer;
  /** A digest of the image, for HTTP caching. */
  etag: string;
}

export class ThemeThumbnails {
  private readonly made = new Map<string, Promise<Thumbnail>>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly parts: PipelineParts,
    /** How long one thumbnail may take to render. */
    private readonly timeoutMs: number,
  ) {}

  /**
   * The thumbnail of a theme (ID or alias) and mode; an unknown theme or mode is a CardError naming
   * the accepted values. Entries are keyed by what the registry accepted, so no caller can grow the
   * set beyond one entry per theme and mode.
   */
  get(themeName: string, modeName: string | undefined): Promise<Thumbnail> {
    const choice = this.parts.themes.resolve(themeName, modeName);
    const key = `${choice.theme.id}\n${choice.mode ?? ''}`;
    let thumbnail = this.made.get(key);
    if (!thumbnail) {
      thumbnail = this.render(choice);
      this.made.set(key, thumbnail);
      thumbnail.catch(() => this.made.delete(key));
    }
    return thumbnail;
  }

  private render({ theme, mode }: ThemeChoice): Promise<Thumbnail> {
    const request = normalizeRequest({
      markdown: thumbnailMarkdown,
      theme: theme.id,
      themeMode: mode,
      // Shown about 100 px wide, so half scale is sharp even on a 2× screen.
      scale: 0.5,
      format: 'webp',
      overHiddenMode: true,
    });
    const job = this.queue.then(async () => {
      // A plain timer (see deadlines.ts): AbortSignal.timeout can be lost to a garbage collection.
      const limit = timeLimit(this.timeoutMs, `the thumbnail did not render within ${this.timeoutMs} ms`);
      const { images } = await renderRequest(this.parts, { request, theme, mode, warnings: [] }, limit.signal).finally(limit.clear);
      const data = images[0]!.data;
      return { data, etag: `"${createHash('sha256').update(data).digest('base64url').slice(0, 16)}"` };
    });
    this.queue = job.catch(() => undefined);
    return job;
  }
}
