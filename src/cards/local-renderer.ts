// Renders cards in this process, without a server: the CLI and the MCP server's local mode use it.
// It is the service's own card pipeline (createCards: same validation, themes, Markdown, warm
// Chromium page, capture); only the images come back as buffers instead of being stored.
import { pino } from 'pino';
import type { Config } from '../config.js';
import { createCards, type Cards, type RenderedImage } from './index.js';
import { checkRequest } from './request/check.js';
import { timeLimit } from './deadlines.js';

/** Log lines go to stderr, so stdout stays clean for file paths (CLI) or the protocol (MCP). */
export function stderrLogger(level: Config['logLevel']) {
  return pino({ level }, pino.destination(2));
}

export class LocalRenderer {
  private constructor(
    private readonly cards: Cards,
    private readonly requestTimeoutMs: number,
  ) {}

  /**
   * Loads the themes; the browser is launched by the first render, so listing themes stays
   * instant. One render page and one Markdown worker: a command renders one request at a time, and
   * a second worker would only load the whole Markdown pipeline again for nothing.
   */
  static open(config: Config): LocalRenderer {
    const settings = { ...config, renderConcurrency: 1, markdownThreads: 1, queueMax: 16, browserProbeIntervalMs: 0, renderCache: undefined };
    return new LocalRenderer(createCards({ settings, log: stderrLogger(config.logLevel) }), config.requestTimeoutMs);
  }

  get themes() {
    return this.cards.themes;
  }

  /**
   * Renders one request body (the fields of POST /api/generate). Throws the core's errors: an
   * invalid_request CardError for a bad field, theme or mode, with the same message the API sends.
   */
  async render(body: unknown): Promise<{ images: RenderedImage[]; warnings: string[] }> {
    // A plain timer (see deadlines.ts): AbortSignal.timeout can be lost to a garbage collection.
    const deadline = timeLimit(this.requestTimeoutMs, `the render did not finish within ${this.requestTimeoutMs} ms`);
    try {
      const checked = checkRequest(body);
      const { images, warnings } = await this.cards.render(checked.request, deadline.signal);
      return { images, warnings: [...checked.warnings, ...warnings] };
    } finally {
      deadline.clear();
    }
  }

  /** Closes the browser, if one was launched. */
  async close(): Promise<void> {
    await this.cards.close();
  }
}
