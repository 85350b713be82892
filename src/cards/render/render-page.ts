// One long-lived browser page that renders cards, used by one request at a time.
//
// Why a long-lived page: a new page per card costs 330–560 ms here, swapping the content of a
// warm page costs a few ms (docs/performance.md#warm-pages). The risks of reuse are handled here:
// - JavaScript is off, so content can neither run code nor leave anything behind;
// - the page has no network: every request is answered from our own files or refused;
// - each render replaces all of #cards, so nothing of the previous request survives;
// - a page that failed in any way is closed and replaced, never reused dirty (see page-pool.ts).
import fs from 'node:fs/promises';
import { resolveFontFile } from '../themes/fonts.js';
import { BrowserPage, type PageRequest } from './devtools/browser-page.js';
import type { DevToolsSession, PipeConnection } from './devtools/pipe-connection.js';
import { declareInPage, PageFonts } from './page-fonts.js';
import type { PageImages } from './page-images.js';
import type { WarmUp } from './page-pool.js';
import { type RenderShell, scriptsWarmUpMarkup, shellOrigin, warmUpMarkup } from './shell-document.js';
import { paintInDocumentOrder, pdfReadingOrderCss, undoPaintInDocumentOrder } from './pdf-reading-order.js';
import { drawTextOnceInPdf, pdfTextOnceCss, undoTextOnceInPdf } from './pdf-text-once.js';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

export interface CardBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface CaptureOptions {
  scale: number;
  format: ImageFormat;
}

/** Quality for the lossy formats: visually lossless for text on flat colours. */
export const lossyQuality = 90;

/** The tab's renderer process died (out of memory, a Chromium bug, killed): the page is gone for good. */
export class PageCrashed extends Error {
  constructor() {
    super('the render page crashed (its renderer process died)');
    this.name = 'PageCrashed';
  }
}

/**
 * Requests a page draws between two collections of its garbage. Blink keeps the DOM of the cards
 * it drew in its garbage-collected heap, and with JavaScript off nothing asks for a collection
 * until that heap has grown a good deal: about 55 MB a page after a few hundred cards, which a
 * collection brings back to a few (docs/performance.md#memory). One every 20 requests costs a
 * page 10-40 ms, about a millisecond a request.
 */
const requestsPerCollection = 20;

export class RenderPage {
  /** The viewport as last set; the height is whatever the last capture needed. */
  private metrics = { width: 0, height: 768, scale: 0 };
  /** Set when the tab crashed; every step waiting on it fails at once instead of at the deadline. */
  private crash?: PageCrashed;
  /** The images of the request being drawn, which the page asks for by address (page-images.ts). */
  private images?: PageImages;
  private readonly crashListeners = new Set<(error: PageCrashed) => void>();
  private browserCallsInFlight = 0;
  /** Whether the page has yet to warm its CJK and emoji faces (opened with the `common` warm-up). */
  private scriptsCold = false;
  /** Bundled scripts installed in the page (see callScript), by source, with the global each was put in. */
  private readonly installedScripts = new Map<string, string>();
  private clearedSinceCollection = 0;

  private readonly session: DevToolsSession;

  private constructor(
    private readonly page: BrowserPage,
    /** The faces this page has declared; markup's new characters bring theirs first. */
    private readonly fonts: PageFonts,
    /**
     * The process group (pid) of the browser the page lives on, so that a step over its time can
     * tell a frozen renderer from a busy one (drawing-progress.ts); undefined where it is not known.
     */
    readonly browserGroup: number | undefined,
  ) {
    // A crashed tab answers nothing: a CDP call sent to it (a capture) may never settle. The
    // crash event fails the step in progress now, so the pool retries the request on a fresh page.
    this.session = page.session;
    page.onCrash(() => {
      this.crash = new PageCrashed();
      for (const listener of this.crashListeners) listener(this.crash);
      this.crashListeners.clear();
    });
  }

  /** True once the tab crashed; such a page is closed, never handed out again (see BrowserFleet.usable). */
  get crashed(): boolean {
    return this.crash !== undefined;
  }

  /**
   * True while a step of this page waits for the browser (not for the server's own work after it,
   * such as compressing a capture): only then can a step over its time be the browser's fault
   * (drawing-progress.ts).
   */
  get waitingOnBrowser(): boolean {
    return this.browserCallsInFlight > 0;
  }

  /**
   * Settles with `step`, or rejects with PageCrashed as soon as the tab crashes. Every call into
   * the browser goes through here, which also counts them for waitingOnBrowser.
   */
  private unlessCrashed<T>(step: Promise<T>): Promise<T> {
    if (this.crash) {
      step.catch(() => {});
      return Promise.reject(this.crash);
    }
    this.browserCallsInFlight += 1;
    return new Promise<T>((resolve, reject) => {
      this.crashListeners.add(reject);
      step.then(resolve, reject).finally(() => {
        this.crashListeners.delete(reject);
        this.browserCallsInFlight -= 1;
      });
    });
  }

  /**
   * Opens a fresh page with JavaScript off and no network, and loads the shell document into it.
   * `warmUp` (page-pool.ts): what it renders and captures before it is handed out, for a page no
   * request waits for yet (a request waiting for it would only wait longer: its own card warms
   * what it uses).
   * `browserGroup`: the browser's process id, which is its process group's (browser-instance.ts).
   */
  static async open(browser: PipeConnection, shell: RenderShell, { warmUp, browserGroup }: { warmUp: WarmUp; browserGroup?: number }): Promise<RenderPage> {
    let renderPage: RenderPage | undefined;
    const page = await BrowserPage.open(browser, {
      javaScriptEnabled: false,
      viewport: { width: 1024, height: 768 },
      route: (request) => answerFromOwnFiles(request, shell.html, renderPage?.images),
    });
    try {
      await page.goto(`${shellOrigin}/`);
      renderPage = new RenderPage(page, new PageFonts(shell.fonts), browserGroup);
      if (warmUp !== 'none') await renderPage.warmWith(warmUpMarkup);
      if (warmUp === 'all') await renderPage.warmWith(scriptsWarmUpMarkup);
      renderPage.scriptsCold = warmUp === 'common';
      return renderPage;
    } catch (error) {
      await page.close().catch(() => {});
      throw error;
    }
  }

  /** Whether warmUpScripts has work left: the page was opened with the `common` warm-up only. */
  get needsScriptsWarmUp(): boolean {
    return this.scriptsCold;
  }

  /** Warms the CJK and emoji faces of a page opened with the `common` warm-up; nothing for any other. */
  async warmUpScripts(): Promise<void> {
    if (!this.scriptsCold) return;
    await this.warmWith(scriptsWarmUpMarkup);
    this.scriptsCold = false;
  }

  /** Lays out and captures `markup`, then empties the page. */
  private async warmWith(markup: string): Promise<void> {
    const [box] = await this.layout(markup);
    if (box) await this.capture(box, { scale: 2, format: 'png' });
    await this.clear();
  }

  /** The images the next cards show by address (a request's PageImages); cleared by clear(). */
  showImages(images: PageImages): void {
    this.images = images;
  }

  /**
   * Replaces the page's cards with `cardsHtml`, waits for the fonts and images it uses, and
   * returns the box of every top-level card in CSS px, in document order.
   */
  async layout(cardsHtml: string): Promise<CardBox[]> {
    return this.unlessCrashed(this.placeCards({ replace: cardsHtml, before: '', after: '', fonts: this.fonts.rulesFor(cardsHtml) }));
  }

  /**
   * Adds cards before and after those on the page (a cover, a closing card) and returns the box of
   * every card, as layout() does.
   */
  async addCards(before: string, after: string): Promise<CardBox[]> {
    return this.unlessCrashed(this.placeCards({ replace: null, before, after, fonts: this.fonts.rulesFor(before + after) }));
  }

  /** `fonts`: @font-face rules the cards need that the page has not declared yet (page-fonts.ts). */
  private placeCards(cards: { replace: string | null; before: string; after: string; fonts: string }): Promise<CardBox[]> {
    return this.page.evaluate(async ({ replace, before, after, fonts }) => {
      if (fonts) document.head.append(Object.assign(document.createElement('style'), { textContent: fonts }));
      const root = document.getElementById('cards')!;
      if (replace !== null) root.innerHTML = replace;
      if (before) root.insertAdjacentHTML('afterbegin', before);
      if (after) root.insertAdjacentHTML('beforeend', after);
      // Layout first: it is what makes the page request the font subsets this content uses,
      // and only then does `fonts.ready` wait for them.
      void root.offsetHeight;
      await document.fonts.ready;
      // Images given by address (page-images.ts) arrive after the markup; decode() waits for them.
      await Promise.all(Array.from(root.querySelectorAll('img'), (img) => img.decode().catch(() => undefined)));
      return Array.from(root.children as HTMLCollectionOf<HTMLElement>, (card) => {
        // Whole card pixels (CSS px × the card's --font-scale), so an image is exactly
        // height × scale pixels with no half-covered row.
        const fontScale = parseFloat(getComputedStyle(card).getPropertyValue('--font-scale')) || 1;
        const fractional = card.getBoundingClientRect().height * fontScale;
        const whole = Math.round(fractional);
        if (Math.abs(fractional - whole) > 1e-3) card.style.height = `${Math.ceil(fractional) / fontScale}px`;
        const box = card.getBoundingClientRect();
        return { x: box.left + window.scrollX, y: box.top + window.scrollY, width: box.width, height: box.height };
      });
    }, cards);
  }

  /**
   * Prints the cards on the page as one PDF, a page per card at its own size: Chromium's own PDF,
   * with vector text and the fonts embedded. `zoom` is the card's fontScale, so a page has the
   * requested size in CSS px (1 px = 0.75 pt) while the card keeps its layout. `alts` (one per card)
   * tag each page as a figure with that alt text, for screen readers; the text stays the PDF's own
   * text, selectable and searchable, each text once and in document order.
   */
  async printCards(zoom: number, alts: readonly string[]): Promise<Buffer> {
    return this.unlessCrashed(this.printCardsIn(zoom, alts));
  }

  private async printCardsIn(zoom: number, alts: readonly string[]): Promise<Buffer> {
    await this.page.evaluate(
      ({ zoom, alts }) => {
        const style = document.createElement('style');
        style.id = 'print-cards';
        // A named page per card: each card's page has that card's size (a long noSplit card too).
        const rules = Array.from(document.getElementById('cards')!.children as HTMLCollectionOf<HTMLElement>, (card, index) => {
          const box = card.getBoundingClientRect();
          card.style.setProperty('page', `card-${index}`);
          // Chromium's tagged PDF makes an element of role img a Figure whose Alt is its label.
          card.setAttribute('role', 'img');
          card.setAttribute('aria-label', alts[index] ?? '');
          return `@page card-${index} { size: ${box.width * zoom}px ${box.height * zoom}px; margin: 0; }`;
        });
        style.textContent = `${rules.join('\n')}\n@media print { #cards { display: block; zoom: ${zoom}; } #cards > .card { margin: 0 !important; break-after: page; print-color-adjust: exact; } }`;
        document.head.append(style);
      },
      { zoom, alts },
    );
    try {
      await this.run(paintInDocumentOrder, pdfReadingOrderCss);
      await this.run(drawTextOnceInPdf, pdfTextOnceCss);
      return await this.page.pdf({ printBackground: true, preferCSSPageSize: true, generateTaggedPDF: true, generateDocumentOutline: false });
    } finally {
      await this.run(undoTextOnceInPdf);
      await this.run(undoPaintInDocumentOrder);
      await this.page.evaluate(() => {
        document.getElementById('print-cards')?.remove();
        for (const card of Array.from(document.getElementById('cards')!.children)) {
          card.removeAttribute('role');
          card.removeAttribute('aria-label');
        }
      });
    }
  }

  /**
   * Evaluates a self-contained script (a JavaScript expression, awaited when it is a promise) in
   * the page and returns its JSON result. Used by pagination, which measures and builds the cards
   * of a request in the page in one go.
   */
  async evaluate<T>(expression: string): Promise<T> {
    return (await this.unlessCrashed(this.declareFontsAndEvaluate(expression))) as T;
  }

  /** The script may put markup into the page: the faces of its characters are declared first. */
  private async declareFontsAndEvaluate(expression: string): Promise<unknown> {
    const fonts = this.fonts.rulesFor(expression);
    if (fonts) await this.page.evaluate(declareInPage, fonts);
    return this.page.evaluate(expression);
  }

  /**
   * Calls `call` (e.g. `paginateInPage({...})`) on the exports of `script`, a bundle of this code
   * base that defines the global `globalName` (pagination-script.ts). The bundle is evaluated once
   * per page and kept there: compiling its 56 KB again took about 8 ms of every request. Content
   * cannot reach it (JavaScript is off for content), and it draws nothing, so no font is declared
   * for its characters; those of the call's input are.
   */
  async callScript<T>(script: string, globalName: string, call: string): Promise<T> {
    let installedAs = this.installedScripts.get(script);
    if (installedAs === undefined) {
      installedAs = `__cardwrightScript${this.installedScripts.size}`;
      await this.unlessCrashed(this.page.evaluate(`void (globalThis.${installedAs} = (() => {\n${script}\nreturn ${globalName};\n})())`));
      this.installedScripts.set(script, installedAs);
    }
    return this.evaluate<T>(`globalThis.${installedAs}.${call}`);
  }

  /**
   * Runs `inPage`, a self-contained function of this code base, in the page with `input` (JSON) and
   * returns its JSON result. The function travels as its source text; the TypeScript loader
   * (tsx/esbuild) may have put calls to its `__name` helper into that text, so the page gets a
   * `__name` that does nothing.
   */
  async run<I, T>(inPage: (input: I) => T | Promise<T>, input?: I): Promise<T> {
    const argument = input === undefined ? '' : JSON.stringify(input);
    return this.evaluate<T>(`(() => { const __name = (target) => target; return (${inPage.toString()})(${argument}); })()`);
  }

  /**
   * Sets the viewport width and device scale that captures use. Text layout differs slightly
   * between device scales, so content must be measured under the scale it is captured at.
   */
  async useDeviceMetrics(width: number, scale: number, height = this.metrics.height): Promise<void> {
    // Unchanged metrics are not sent again: each change makes Chromium resize and lay out anew.
    if (width === this.metrics.width && height === this.metrics.height && scale === this.metrics.scale) return;
    await this.unlessCrashed(this.session.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: scale, mobile: false }));
    this.metrics = { width, height, scale };
  }

  /** Captures one card box as an image, at `scale` device pixels per CSS px. */
  async capture(box: CardBox, options: CaptureOptions): Promise<Buffer> {
    // The viewport is made exactly as tall as the card and scrolled to it, rather than capturing
    // beyond the viewport: with many cards on the page (autoSplit) that saves about a tenth of
    // each capture. Viewport height does not affect the cards' layout, whose sizes are fixed in px,
    // so layout keeps the height of the last capture and cards of one size never resize it.
    // The device scale is set on our own CDP session: a capture through a session without its own
    // override silently comes back at scale 1.
    await this.useDeviceMetrics(Math.ceil(box.x + box.width), options.scale, Math.ceil(box.height));
    await this.unlessCrashed(this.session.send('Runtime.evaluate', { expression: `window.scrollTo(0, ${box.y})` }));
    const { data } = await this.unlessCrashed(this.session.send('Page.captureScreenshot', {
      format: options.format,
      quality: options.format === 'png' ? undefined : lossyQuality,
      // In document coordinates, which the scroll above has brought into the viewport.
      clip: { x: box.x, y: box.y, width: box.width, height: box.height, scale: 1 },
      optimizeForSpeed: true,
    }));
    return Buffer.from(data, 'base64');
  }

  /**
   * A DevTools session of its own on this page, for inspecting what a render drew (which fonts drew
   * each text run, where decorations are) without touching the session captures use. The caller
   * detaches it.
   */
  inspect(): Promise<DevToolsSession> {
    return this.page.inspect();
  }

  /** Empties the page so no content outlives its request, even in memory. */
  async clear(): Promise<void> {
    this.images = undefined;
    await this.unlessCrashed(
      this.page.evaluate(() => {
        document.getElementById('cards')!.replaceChildren();
      }),
    );
    this.clearedSinceCollection += 1;
    if (this.clearedSinceCollection >= requestsPerCollection) {
      this.clearedSinceCollection = 0;
      await this.unlessCrashed(this.session.send('HeapProfiler.collectGarbage'));
    }
  }

  async close(): Promise<void> {
    await this.page.close().catch(() => {});
  }
}

/**
 * Network handler of render pages: the shell document, bundled fonts and the images of the request
 * being drawn are served from memory and node_modules; everything else (remote images, CSS url()s,
 * links to the host's own services) is refused, so user content can never reach the network or
 * the loopback interface.
 */
async function answerFromOwnFiles(route: PageRequest, shellHtml: string, images: PageImages | undefined): Promise<void> {
  const url = new URL(route.url);
  if (url.origin === shellOrigin) {
    if (url.pathname === '/') {
      return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: shellHtml });
    }
    const image = images?.find(url.pathname);
    if (image) return route.fulfill({ status: 200, contentType: image.mimeType, body: image.bytes });
    const fontFile = resolveFontFile(url.pathname);
    if (fontFile) {
      const body = await fs.readFile(fontFile).catch(() => undefined);
      if (body) return route.fulfill({ status: 200, contentType: 'font/woff2', body });
    }
  }
  return route.abort();
}
