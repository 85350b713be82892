// Renders cards in this process, without a server: the CLI and the MCP server's local mode use it.
// It is the service's own pipeline (same validation, themes, Markdown, warm Chromium page, capture),
// only the images come back as buffers instead of being stored.
import { pino } from 'pino';
import { checkGenerateBody } from '../cards/request/check.js';
import type { Config } from '../config.js';
import { renderImages } from '../cards/pipeline.js';
import { RemoteImageFetcher } from '../cards/images/remote-image-fetcher.js';
import type { RenderedImage } from '../cards/render/render-cards.js';
import { Renderer } from '../cards/render/renderer.js';
import { buildShellDocument } from '../cards/render/shell-document.js';
import { loadThemes, type ThemeRegistry } from '../cards/themes/registry.js';

/** Log lines go to stderr, so stdout stays clean for file paths (CLI) or the protocol (MCP). */
export function stderrLogger(env: Record<string, string | undefined> = process.env) {
  return pino({ level: env.LOG_LEVEL?.trim() || 'warn' }, pino.destination(2));
}

export class LocalRenderer {
  private renderer?: Renderer;
  private remoteImages?: RemoteImageFetcher;

  private constructor(
    readonly themes: ThemeRegistry,
    private readonly config: Config,
    private readonly log = stderrLogger(),
  ) {}

  /** Loads the themes; the browser is launched by the first render, so listing themes stays instant. */
  static open(config: Config): LocalRenderer {
    const local = new LocalRenderer(loadThemes(config.themesDir), config);
    for (const problem of local.themes.problems) local.log.error({ file: problem.file }, `custom theme skipped: ${problem.message}`);
    return local;
  }

  /**
   * Renders one request body (the fields of POST /api/generate). Throws the API's errors: an
   * invalid_request CardError for a bad field, theme or mode, with the same message the API sends.
   */
  async render(body: unknown): Promise<RenderedImage[]> {
    const options = checkGenerateBody(body);
    this.renderer ??= new Renderer({
      shellHtml: buildShellDocument(this.themes),
      concurrency: 1,
      queueMax: 16,
      chromiumPath: this.config.chromiumPath,
      log: this.log,
    });
    this.remoteImages ??= new RemoteImageFetcher({ policy: this.config.remoteImages, allowlist: this.config.remoteImagesAllowlist });
    const deps = { renderer: this.renderer, themes: this.themes, remoteImages: this.remoteImages, log: this.log };
    const { images } = await renderImages(deps, options, AbortSignal.timeout(this.config.requestTimeoutMs));
    return images;
  }

  /** Closes the browser, if one was launched. */
  async close(): Promise<void> {
    await this.renderer?.close();
  }
}
