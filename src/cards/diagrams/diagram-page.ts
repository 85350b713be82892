// The one place Mermaid runs: a Chromium page of its own, in a browser context of its own (no
// cookies, storage or process shared with the card pages), with JavaScript on (Mermaid is a script)
// but no network: every request is answered from the service's own files (the page, Mermaid,
// DOMPurify, the bundled fonts) or refused, and a Content-Security-Policy allows only those scripts.
// The diagram is drawn with securityLevel "strict" (labels sanitized, no click callbacks, directives
// cannot change the security settings), its SVG is sanitized again with DOMPurify's SVG profile
// (no script, event handler, foreignObject, image or outside link), and only a PNG of it leaves
// the page. The card pages never see Mermaid's output, only that image.
import fs from 'node:fs/promises';
import path from 'node:path';
import { nodeModulesDir } from '../../paths.js';
import { cardMarkup } from '../render/card-markup.js';
import { declareInPage, PageFonts } from '../render/page-fonts.js';
import type { RenderShell } from '../render/shell-document.js';
import type { ScriptServer } from './script-server.js';
import type { Theme } from '../themes/theme-file.js';
import { resolveFontFile } from '../themes/fonts.js';
import { diagramLimits } from './diagram-limits.js';
import { foldArguments, foldInPage, type FoldedRow } from './fold-in-page.js';
import { largerTextLayout, tallerLayout, typeOf, type DiagramLayout } from './legibility.js';
import { mermaidC4Colours, mermaidThemeCss, mermaidThemeVariables, type ThemePalette } from './theme-variables.js';
import { BrowserPage, type PageRequest } from '../render/devtools/browser-page.js';
import type { DevToolsSession, PipeConnection } from '../render/devtools/pipe-connection.js';

/**
 * A diagram as an image, or why it could not be drawn. Sizes are CSS px of the card;
 * `smallestTextPx` is its smallest text as the card shows it (after the diagram is scaled to the
 * card's content width, and to its height where a split card scales it), absent for a diagram
 * without text. `cuts`: where a drawing taller than a card may be cut across, fractions of its
 * height. `textPx`: its smallest text at the size the card lays it out at, before any scaling to a
 * card or to the room left on one (the pagination keeps it at the floor). `rows`: the parts of a
 * drawing folded into rows, left to right (fold-in-page.ts; it is then wider than the card, each
 * row at most as wide). `transient`: the failure may not happen again (the time limit on a busy
 * machine, a crashed page), so a card showing it is not remembered by the render cache.
 */
export type DrawnDiagram =
  /** `link`: shown from that address instead of from `png`, which is then empty (see ImageLinker in answer-asks.ts). */
  | { ok: true; png: Uint8Array; width: number; height: number; smallestTextPx?: number; link?: string; cuts?: number[]; textPx?: number; rows?: FoldedRow[] }
  | { ok: false; message: string; transient?: boolean };

/** How the card a diagram goes into is drawn. */
export interface DiagramStyle {
  theme: Theme;
  mode?: string;
  /** The card's layout width in CSS px (width / fontScale). */
  cardWidth: number;
  /**
   * The card's layout height in CSS px, when a picture taller than the card is scaled down to fit
   * one (the split modes); absent when the card grows with its content (noSplit, weChatMode).
   */
  cardHeight?: number;
  /**
   * Whether a diagram taller than the card may be cut between its rows and go on over several
   * cards (autoSplit, and hrSplit without overHiddenMode) instead of being scaled down to fit one.
   */
  sliceable?: boolean;
  /** Device px per CSS px of the card's capture. */
  deviceScale: number;
}

/** The page's scripts, by their path on the page's origin (served by a ScriptServer: script-server.ts). */
export const diagramScripts: Record<string, string> = {
  '/mermaid.min.js': path.join(nodeModulesDir, 'mermaid', 'dist', 'mermaid.min.js'),
  '/purify.min.js': path.join(nodeModulesDir, 'dompurify', 'dist', 'purify.min.js'),
};

/** The page's own files are all it may load; its origin is its ScriptServer's. */
const contentSecurityPolicy = (origin: string) => ["default-src 'none'", `script-src ${origin}`, "style-src 'unsafe-inline'", `font-src ${origin}`, 'img-src data:'].join('; ');

/**
 * The page's own styles. Every text of a drawing is set in the card's faces (--diagram-font, set
 * per drawing): some types name a face of their own for some texts (a journey's tasks and title, a
 * C4 diagram's elements: "Open Sans", which the page lacks), and their Chinese came out as empty
 * boxes from the fallback. Mermaid draws in an element of that id while it measures, too.
 */
const diagramPageCss = '#diagram{position:absolute;left:0;top:0} svg#diagram-svg :is(text, tspan){font-family:var(--diagram-font) !important}';

/** A sample card of the theme, read for its colours, type and content width (see readCard). */
const sampleContent =
  '<h2 id="sample-heading">Title</h2><p id="sample-text">Text <a id="sample-link" href="#">link</a> <strong id="sample-strong">bold</strong></p>' +
  '<blockquote id="sample-quote"><p>Quote</p></blockquote>';

/** What Mermaid is told, besides the theme's colours. */
const mermaidConfig = {
  startOnLoad: false,
  securityLevel: 'strict',
  theme: 'base',
  logLevel: 'fatal',
  // Without HTML labels Mermaid draws text as SVG text, not HTML inside foreignObject.
  htmlLabels: false,
  flowchart: { htmlLabels: false },
  maxTextSize: diagramLimits.maxSourceChars,
  maxEdges: diagramLimits.maxEdges,
  suppressErrorRendering: true,
  deterministicIds: true,
  // Settings a diagram's own %%{init}%% directive may not change: Mermaid's defaults, and what
  // would bring HTML (and its images) into labels or loosen Mermaid's own sanitizing.
  secure: ['secure', 'securityLevel', 'startOnLoad', 'maxTextSize', 'suppressErrorRendering', 'maxEdges', 'htmlLabels', 'dompurifyConfig', 'deterministicIds'],
};

/** What a diagram needs of the card it goes into, read from a sample card (see readCard). */
interface CardReading {
  palette: ThemePalette;
  /** Width of the card's content, where the diagram goes. */
  contentWidth: number;
  /** Height a picture may take on one card before it is scaled down; absent when the card grows. */
  contentHeight?: number;
}

/** What warmUp draws: Mermaid's smallest flowchart. */
const warmUpSource = 'flowchart TD\n  a --> b';

export class DiagramPage {
  private metrics = { width: 0, height: 0, scale: 0 };
  private readonly readings = new Map<string, CardReading>();
  private warm = false;

  private readonly session: DevToolsSession;

  private constructor(
    private readonly page: BrowserPage,
    /** The faces this page has declared; a diagram's new characters bring theirs first. */
    private readonly fonts: PageFonts,
  ) {
    this.session = page.session;
  }

  /**
   * Opens the page on `browser` with the render pages' document (fonts and theme CSS) and Mermaid.
   * `refused` is told every request the page made that was not one of its own files.
   */
  static async open(browser: PipeConnection, shell: RenderShell, scripts: ScriptServer, refused: (url: string) => void): Promise<DiagramPage> {
    const document = shell.html.replace(
        '</head>',
        `${Object.keys(diagramScripts).map((src) => `<script src="${src}"></script>`).join('')}<style>${diagramPageCss}</style></head>`,
      ).replace('<div id="cards"></div>', '<div id="cards"></div><div id="diagram"></div>');
      // The page's origin is the loopback port its scripts come from: Chromium lets a page fetch
      // from a loopback address only when the page is on one itself. Every request still goes
      // through the handler below, the document and fonts answered from memory and disk.
    const origin = await scripts.origin();
    const page = await BrowserPage.open(browser, {
      javaScriptEnabled: true,
      viewport: { width: 1024, height: 768 },
      route: (request) => answerFromOwnFiles(request, origin, document, scripts, refused),
      // The in-page functions below are sent as their source. Run from source (tsx), named
      // functions come wrapped in esbuild's __name(), which the page must know (as a no-op).
      initScript: 'globalThis.__name = (target) => target;',
    });
    try {
      await page.goto(`${origin}/`);
      // Transparent: the image sits on the card's own background, whatever it is.
      await page.session.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
      return new DiagramPage(page, new PageFonts(shell.fonts));
    } catch (error) {
      await page.close().catch(() => {});
      throw error;
    }
  }

  /**
   * Draws a two-node flowchart in `style`, once per page. Mermaid's first drawing on a page takes
   * some 0.7 s more than the next (its code compiled, the card's faces loaded), five times that on
   * a busy machine: the caller does this before a diagram's own time limit starts.
   */
  async warmUp(style: DiagramStyle): Promise<void> {
    if (this.warm) return;
    this.warm = true;
    await this.draw(warmUpSource, style);
  }

  /**
   * Draws one diagram in the card's theme and width. Parser errors are answers, not exceptions. A
   * diagram whose text would be smaller on the card than diagramLimits.minTextPx is drawn again
   * taller, then with larger text where that keeps its width (legibility.ts), and the drawing with
   * the largest smallest text is kept. Another layout is tried only in the first half of the time
   * up to `deadline` (performance.now() ms; the diagram's time limit): on a busy machine a diagram
   * is rather drawn small than not at all.
   */
  async draw(source: string, style: DiagramStyle, deadline = Infinity): Promise<DrawnDiagram> {
    const halfTime = (performance.now() + deadline) / 2;
    const card = await this.readCard(style);
    const themeVariables = mermaidThemeVariables(card.palette);
    const config = { ...mermaidConfig, fontFamily: card.palette.fontFamily, themeVariables, themeCSS: mermaidThemeCss(themeVariables), c4: mermaidC4Colours(card.palette) };
    const fonts = this.fonts.rulesFor(source);
    if (fonts) await this.page.evaluate(declareInPage, fonts);
    // Each drawing's smallest text on the card scaled to fit one card, and as drawn at the card's
    // width (what it keeps when it is cut over several cards instead).
    const drawings: Drawing[] = [];
    const drawAs = async (layout: DiagramLayout) => {
      const drawn = await this.page.evaluate(drawInPage, { ...layout, width: card.contentWidth, maxSvgChars: diagramLimits.maxSvgChars });
      if (drawn.ok) drawings.push({ layout, atWidthPx: drawn.smallestTextPx ?? Infinity, height: drawn.height });
      return drawn.ok ? { ...drawn, smallestTextPx: smallestOnCard(drawn, card.contentHeight) } : drawn;
    };
    const asWritten: DiagramLayout = { source, config };
    const first = await drawAs(asWritten);
    if (!first.ok) return { ok: false, message: inOurWords(first.message) };
    let best: { layout: DiagramLayout; drawn: typeof first } = { layout: asWritten, drawn: first };
    let last = best.layout;
    const legible = () => (best.drawn.smallestTextPx ?? Infinity) >= diagramLimits.minTextPx;
    const tryLayout = async (layoutOf: () => DiagramLayout | undefined) => {
      const layout = legible() || performance.now() > halfTime ? undefined : layoutOf();
      if (!layout) return;
      const drawn = await drawAs(layout);
      last = layout;
      if (drawn.ok && (drawn.smallestTextPx ?? Infinity) > best.drawn.smallestTextPx!) best = { layout, drawn };
    };
    await tryLayout(() => tallerLayout(asWritten));
    // Larger text is sized for the way the drawing will be shown: cut over cards at the card's
    // width when it would be, else fitted to one card. Cut, its text is sized a little over the
    // floor, for the width its larger text may add.
    const toCut = style.sliceable ? slicedDrawing(drawings, best.drawn.smallestTextPx, card.contentHeight) : undefined;
    if (toCut) {
      if (toCut.atWidthPx < diagramLimits.minTextPx && performance.now() <= halfTime) {
        const layout = largerTextLayout(toCut.layout, (1.05 * diagramLimits.minTextPx) / toCut.atWidthPx);
        if (layout) await drawAs(layout);
        if (layout) last = layout;
      }
    } else {
      await tryLayout(() => largerTextLayout(best.layout, diagramLimits.minTextPx / best.drawn.smallestTextPx!));
    }
    const sliced = style.sliceable ? slicedDrawing(drawings, best.drawn.smallestTextPx, card.contentHeight) : undefined;
    const chosen = sliced?.layout ?? best.layout;
    // The page holds the last drawing: the chosen one is drawn again if it was not the last.
    const drawn = chosen === best.layout && chosen === last ? best.drawn : await drawAs(chosen);
    if (!drawn.ok) return { ok: false, message: inOurWords(drawn.message) };
    // A drawing that stays too small because it is too wide (a journey's row of tasks) is folded
    // into rows, where it can be cut down its height and each row fits a card.
    const atWidthPx = [...drawings].reverse().find((drawing) => drawing.layout === chosen)?.atWidthPx ?? Infinity;
    // Not a sequence diagram: its messages run from one participant to another, and folded
    // between two participants they would point at nothing.
    const foldable = typeOf(source)?.toLowerCase() !== 'sequencediagram';
    const folded =
      foldable && !sliced && (drawn.smallestTextPx ?? Infinity) < diagramLimits.minTextPx && atWidthPx < diagramLimits.minTextPx
        ? await this.page.evaluate(foldInPage, foldArguments(card.contentWidth, card.contentHeight, style.sliceable, atWidthPx))
        : undefined;
    // Where it may be cut across: for a drawing cut over cards, and for one taller than half a card,
    // which fits a card alone but may not fit under its heading (the pagination cuts it there).
    const mayBeCut = sliced !== undefined || (style.sliceable && !folded && card.contentHeight !== undefined && drawn.height > card.contentHeight / 2);
    const cuts = mayBeCut ? await this.page.evaluate(cutsInPage) : undefined;
    const placed = folded ?? drawn;
    const box = { x: placed.x, y: placed.y, width: Math.max(1, placed.width), height: Math.max(1, placed.height) };
    const scale = Math.min(style.deviceScale, diagramLimits.maxImageSidePx / Math.max(box.width, box.height));
    await this.useDeviceMetrics(Math.ceil(box.x + box.width), Math.ceil(box.y + box.height), scale);
    const { data } = await this.session.send('Page.captureScreenshot', {
      format: 'png',
      clip: { ...box, scale: 1 },
      captureBeyondViewport: false,
    });
    const smallestTextPx = sliced ? sliced.atWidthPx : (folded ?? drawn).smallestTextPx;
    const smallest = smallestTextPx === undefined || !Number.isFinite(smallestTextPx) ? {} : { smallestTextPx };
    // Its smallest text at the size the card lays the picture out at (a folded one's rows grown).
    const laidOutPx = folded ? folded.smallestTextPx : atWidthPx;
    const textPx = laidOutPx !== undefined && Number.isFinite(laidOutPx) ? { textPx: laidOutPx } : {};
    const parts = cuts && cuts.length > 0 ? { cuts } : folded ? { rows: folded.rows } : {};
    return { ok: true, png: Buffer.from(data, 'base64'), width: box.width, height: box.height, ...smallest, ...textPx, ...parts };
  }

  /**
   * The theme's colours and type as drawn on a sample card of the request's size, and the room
   * its content leaves a diagram. Kept per theme, mode and size.
   */
  private async readCard(style: DiagramStyle): Promise<CardReading> {
    const key = `${style.theme.className} ${style.mode ?? ''} ${style.cardWidth} ${style.cardHeight ?? ''}`;
    const known = this.readings.get(key);
    if (known) return known;
    const fixedHeight = style.cardHeight !== undefined;
    const markup = cardMarkup({ theme: style.theme, mode: style.mode, width: style.cardWidth, height: style.cardHeight ?? 200, fixedHeight, contentHtml: sampleContent });
    const { contentHeight, ...read } = await this.page.evaluate(readCardInPage, markup);
    const reading = fixedHeight ? { ...read, contentHeight } : read;
    // Sizes are many: the oldest readings go first once a few hundred are kept.
    if (this.readings.size >= 500) this.readings.delete(this.readings.keys().next().value!);
    this.readings.set(key, reading);
    return reading;
  }

  private async useDeviceMetrics(width: number, height: number, scale: number): Promise<void> {
    if (width === this.metrics.width && height === this.metrics.height && scale === this.metrics.scale) return;
    await this.session.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: scale, mobile: false });
    this.metrics = { width, height, scale };
  }

  /** Empties the page, so no diagram outlives its request. */
  async clear(): Promise<void> {
    await this.page.evaluate(() => {
      document.getElementById('diagram')!.replaceChildren();
      document.getElementById('cards')!.replaceChildren();
    });
  }

  async close(): Promise<void> {
    await this.page.close().catch(() => {});
  }
}

/** Mermaid's message, except where it gives advice the author cannot follow (our bounds are fixed). */
function inOurWords(message: string): string {
  if (/^Edge limit exceeded/.test(message)) {
    return `The diagram has more than ${diagramLimits.maxEdges} edges; at most ${diagramLimits.maxEdges} are drawn. Split it into smaller diagrams.`;
  }
  return message;
}

/**
 * The smallest text of a drawing as the card shows it: a drawing taller than the room a split card
 * leaves is scaled down to fit (render/paginate/fit-to-card.ts), its text with it.
 */
function smallestOnCard(drawn: { height: number; smallestTextPx?: number }, contentHeight: number | undefined): number | undefined {
  if (drawn.smallestTextPx === undefined) return undefined;
  const fitted = contentHeight !== undefined && drawn.height > contentHeight ? contentHeight / drawn.height : 1;
  return drawn.smallestTextPx * fitted;
}

/** One layout of a diagram as drawn at the card's width: its smallest text there, and its height. */
interface Drawing {
  layout: DiagramLayout;
  atWidthPx: number;
  height: number;
}

/**
 * The drawing to cut over several cards, when scaled to fit one card its text would be under the
 * floor and drawn at the card's width it is clearly larger (a flowchart of a dozen steps top to
 * bottom: 14 px text at the card's width, 5 px shrunk to the card's height). The drawing whose
 * text is largest at the card's width is taken.
 */
function slicedDrawing(drawings: Drawing[], fittedPx: number | undefined, contentHeight: number | undefined): Drawing | undefined {
  if (contentHeight === undefined || fittedPx === undefined || fittedPx >= diagramLimits.minTextPx) return undefined;
  const tall = drawings.filter((drawing) => drawing.height > contentHeight && Number.isFinite(drawing.atWidthPx));
  const largest = tall.reduce<Drawing | undefined>((a, b) => (a && a.atWidthPx >= b.atWidthPx ? a : b), undefined);
  return largest && largest.atWidthPx > fittedPx * slicingGain ? largest : undefined;
}

/** How much larger a diagram's text must be cut over cards than fitted on one for it to be cut. */
const slicingGain = 1.25;

/**
 * In the page: where the drawing may be cut across, as fractions of its height from the top: the
 * middle of every band that crosses no text, no shape and no node (a flowchart's gaps between its
 * rows of boxes, which only arrows cross; never between a class's members). A shape taller than
 * half the drawing (a subgraph's frame, a background) does not count: a cut may go through its
 * frame. A pie is cut only between itself (under its title) and its legend.
 */
function cutsInPage(): number[] {
  const drawing = document.querySelector('#diagram svg')!;
  const box = drawing.getBoundingClientRect();
  const spans: [number, number][] = [];
  // A node's group (g.node) counts whole: a class's box and the lines between its members are
  // paths, and a C4 database's cylinder too. A shape's stroke reaches past its box: 2 px more.
  for (const el of Array.from(drawing.querySelectorAll('text, foreignObject, rect, circle, ellipse, polygon, image, use, g.node'))) {
    const r = el.getBoundingClientRect();
    if (r.height <= 0 || r.width <= 0 || r.height > box.height / 2) continue;
    spans.push([r.top - box.top - 2, r.bottom - box.top + 2]);
  }
  // Lines that run across (a sequence diagram's messages) hold to the label above them, and to
  // their arrowheads, which are markers outside their boxes; lines that run down (a flowchart's
  // arrows) may be cut.
  for (const el of Array.from(drawing.querySelectorAll('line, path'))) {
    const r = el.getBoundingClientRect();
    if (r.width > 2 * r.height && r.height < box.height / 2) spans.push([r.top - box.top - 20, r.bottom - box.top + 5]);
  }
  // Parts that hold together: a pie's title and slices (its circle is taller than half a pie
  // with its legend under it), and the names of its legend.
  for (const selector of ['.pieTitleText, .pieCircle, .pieOuterCircle', 'g.legend']) {
    const parts = Array.from(drawing.querySelectorAll(selector), (el) => el.getBoundingClientRect()).filter((r) => r.height > 0);
    if (parts.length > 0) spans.push([Math.min(...parts.map((r) => r.top)) - box.top - 2, Math.max(...parts.map((r) => r.bottom)) - box.top + 2]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  const cuts: number[] = [];
  let reach = spans[0]?.[1] ?? 0;
  for (const [top, bottom] of spans.slice(1)) {
    if (top - reach >= 2) cuts.push((reach + top) / 2 / box.height);
    reach = Math.max(reach, bottom);
  }
  return cuts;
}

/** In the page: lays out the sample card and reads what a diagram needs of it. */
async function readCardInPage(markup: string): Promise<Required<CardReading>> {
  const root = document.getElementById('cards')!;
  root.innerHTML = markup;
  await document.fonts.ready;
  const canvas = document.createElement('canvas').getContext('2d', { willReadFrequently: true })!;
  // Any CSS colour (named, rgb(), oklch(), color-mix()) as sRGB channels, through the canvas.
  const rgba = (value: string): [number, number, number, number] => {
    canvas.clearRect(0, 0, 1, 1);
    canvas.fillStyle = '#000';
    canvas.fillStyle = value;
    canvas.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = canvas.getImageData(0, 0, 1, 1).data;
    return [r!, g!, b!, a! / 255];
  };
  const card = root.querySelector<HTMLElement>('.card')!;
  const inner = root.querySelector<HTMLElement>('.card-content-inner')!;
  const byId = (id: string) => document.getElementById(id)!;
  // The background the content sits on: the nearest opaque background colour, else the first
  // colour of the card's gradient, else white.
  let background: [number, number, number, number] = [255, 255, 255, 1];
  let found = false;
  for (let element: HTMLElement | null = inner; element && !found; element = element === card ? null : element.parentElement) {
    const colour = rgba(getComputedStyle(element).backgroundColor);
    if (colour[3] > 0.5) {
      background = colour;
      found = true;
    }
  }
  const gradientColour = /(?:rgba?|hsla?|oklch|oklab|lab|lch|color)\([^)]*\)|#[0-9a-f]{3,8}\b/i.exec(getComputedStyle(card).backgroundImage)?.[0];
  if (!found && gradientColour) background = [...rgba(gradientColour).slice(0, 3), 1] as [number, number, number, number];
  const opaque = (colour: [number, number, number, number]): [number, number, number, number] => [
    colour[0] * colour[3] + background[0] * (1 - colour[3]),
    colour[1] * colour[3] + background[1] * (1 - colour[3]),
    colour[2] * colour[3] + background[2] * (1 - colour[3]),
    1,
  ];
  const text = byId('sample-text');
  const heading = getComputedStyle(byId('sample-heading'));
  const quote = getComputedStyle(byId('sample-quote'));
  // A rule beside or under the heading, and the quote's rule (else its text colour).
  const ruleOf = (style: CSSStyleDeclaration, sides: ('InlineStart' | 'Bottom')[]) => {
    const side = sides.find((name) => parseFloat(style[`border${name}Width`]) > 0 && style[`border${name}Style`] !== 'none');
    return side ? style[`border${side}Color`] : undefined;
  };
  const accents = [heading.color, ruleOf(heading, ['InlineStart', 'Bottom']), getComputedStyle(byId('sample-link')).color, ruleOf(quote, ['InlineStart']) ?? quote.color, getComputedStyle(byId('sample-strong')).color];
  const innerStyle = getComputedStyle(inner);
  const contentWidth = inner.clientWidth - parseFloat(innerStyle.paddingLeft) - parseFloat(innerStyle.paddingRight);
  // As render/paginate/card-frame.ts measures it: from the top of the content to the bottom of the
  // card's content box (meaningful for a card of fixed height only).
  const contentBox = card.querySelector<HTMLElement>('.card-content')!;
  const contentStyle = getComputedStyle(contentBox);
  const contentBottom = contentBox.getBoundingClientRect().bottom - parseFloat(contentStyle.borderBottomWidth) - parseFloat(contentStyle.paddingBottom) - parseFloat(innerStyle.marginBottom);
  const contentTop = inner.getBoundingClientRect().top + parseFloat(innerStyle.paddingTop) + parseFloat(innerStyle.borderTopWidth);
  const contentHeight = contentBottom - contentTop - parseFloat(innerStyle.paddingBottom) - parseFloat(innerStyle.borderBottomWidth);
  const palette = {
    background,
    text: opaque(rgba(getComputedStyle(text).color)),
    heading: opaque(rgba(heading.color)),
    accents: accents.filter((colour) => colour !== undefined).map((colour) => opaque(rgba(colour))),
    fontFamily: getComputedStyle(text).fontFamily,
    fontSizePx: Math.round(parseFloat(getComputedStyle(text).fontSize)),
  };
  root.replaceChildren();
  return { palette, contentWidth: Math.max(50, Math.floor(contentWidth)), contentHeight: Math.max(50, Math.floor(contentHeight) - 1) };
}

interface DrawArguments extends DiagramLayout {
  width: number;
  maxSvgChars: number;
}

/** Where the drawing is in the page, and its smallest text there (CSS px), if it has any. */
type DrawnInPage = { ok: true; x: number; y: number; width: number; height: number; smallestTextPx?: number } | { ok: false; message: string };

/** In the page: Mermaid draws the SVG, DOMPurify cleans it, and it is placed for the capture. */
async function drawInPage({ source, config, width, maxSvgChars }: DrawArguments): Promise<DrawnInPage> {
  const page = window as unknown as {
    mermaid: { initialize(config: unknown): void; render(id: string, text: string): Promise<{ svg: string }> };
    DOMPurify: { sanitize(dirty: string, config: unknown): string; addHook(entry: string, hook: unknown): void; removeHook(entry: string, hook: unknown): void };
  };
  const host = document.getElementById('diagram')!;
  host.replaceChildren();
  host.style.width = `${width}px`;
  host.style.fontFamily = String(config.fontFamily);
  document.documentElement.style.setProperty('--diagram-font', String(config.fontFamily));
  // What Mermaid draws in currentColor (a Gantt chart's grid lines, from d3's axis) takes the grid colour.
  host.style.color = String((config.themeVariables as Record<string, unknown>).gridColor);
  // Gantt charts take the width of their container, which Mermaid's scratch element lacks, and
  // their dates are written short to fit a card (a diagram's own axisFormat wins).
  page.mermaid.initialize({ ...config, gantt: { axisFormat: '%m-%d', ...(config.gantt as object), useWidth: width } });
  // Mermaid measures its labels as it lays them out (a pie's legend, the box around a label): the
  // faces of the diagram's characters are loaded first, or it measures them in a fallback face and
  // the wider real face is cut by the drawing's frame.
  await Promise.all(['400', '700'].map((weight) => document.fonts.load(`${weight} 16px ${String(config.fontFamily)}`, source).catch(() => [])));
  let svg: string;
  try {
    ({ svg } = await page.mermaid.render('diagram-svg', source));
  } catch (error) {
    const message = error instanceof Error ? error.message : String((error as { str?: string })?.str ?? error);
    return { ok: false, message: message || 'Mermaid could not read this diagram.' };
  } finally {
    // Mermaid leaves its scratch element behind when it fails.
    for (const id of ['diagram-svg', 'ddiagram-svg', 'idiagram-svg']) document.getElementById(id)?.remove();
  }
  if (svg.length > maxSvgChars) {
    return { ok: false, message: `The diagram's drawing is ${svg.length.toLocaleString('en-US')} characters of SVG; at most ${maxSvgChars.toLocaleString('en-US')} are drawn. Split it into smaller diagrams.` };
  }
  // No image of any kind and no link outside the drawing: only references to its own parts (#id).
  const ownPartsOnly = (_node: Element, attribute: { attrName: string; attrValue: string; keepAttr: boolean }) => {
    if (/^(?:xlink:)?href$/i.test(attribute.attrName) && !attribute.attrValue.trim().startsWith('#')) attribute.keepAttr = false;
  };
  page.DOMPurify.addHook('uponSanitizeAttribute', ownPartsOnly);
  let clean: string;
  try {
    clean = page.DOMPurify.sanitize(svg, { USE_PROFILES: { svg: true, svgFilters: true }, FORBID_TAGS: ['image', 'feImage', 'a'] });
  } finally {
    page.DOMPurify.removeHook('uponSanitizeAttribute', ownPartsOnly);
  }
  host.innerHTML = clean;
  const drawing = host.querySelector('svg');
  if (!drawing) return { ok: false, message: 'Mermaid drew nothing for this diagram.' };
  // Mermaid gives the drawing width 100% and its natural width as max-width, but no height: sized
  // here from its viewBox, at most as wide as the card's content.
  const viewBox = drawing.viewBox.baseVal;
  const natural = viewBox && viewBox.width > 0 && viewBox.height > 0 ? parseFloat(drawing.style.maxWidth) || viewBox.width : undefined;
  const size = (naturalWidth: number) => {
    const drawnWidth = Math.min(naturalWidth, width);
    drawing.setAttribute('width', String(drawnWidth));
    drawing.setAttribute('height', String((drawnWidth * viewBox.height) / viewBox.width));
    drawing.style.maxWidth = 'none';
  };
  if (natural !== undefined) size(natural);
  if (natural !== undefined) drawing.dataset.natural = String(natural);
  await document.fonts.ready;
  // A journey draws each task's name on one line however long, over the boxes beside it (and no
  // fold is left between them, see foldInPage): a name wider than its box is wrapped to fit it,
  // between words (Chinese ones too), up to three lines.
  for (const name of Array.from(drawing.querySelectorAll<SVGTextElement>('text.task'))) {
    const box = name.closest('g')?.querySelector<SVGRectElement>(':scope > rect.task');
    const line = name.querySelector('tspan');
    if (!box || !line || name.querySelectorAll('tspan').length !== 1) continue;
    const room = box.width.baseVal.value - 8;
    const text = line.textContent ?? '';
    if (room <= 0 || line.getComputedTextLength() <= room) continue;
    const words = Array.from(new Intl.Segmenter(undefined, { granularity: 'word' }).segment(text), (part) => part.segment);
    const lines: string[] = [];
    for (const word of words) {
      const last = lines.length > 0 ? lines[lines.length - 1]! : undefined;
      line.textContent = (last ?? '') + word;
      if (last === undefined || (line.getComputedTextLength() > room && last.trim() !== '' && lines.length < 3)) lines.push(word.trimStart());
      else lines[lines.length - 1] = last + word;
    }
    const lineHeight = parseFloat(getComputedStyle(name).fontSize) * 1.15;
    const x = line.getAttribute('x') ?? '';
    line.remove();
    lines.forEach((text, i) => {
      const part = document.createElementNS('http://www.w3.org/2000/svg', 'tspan');
      part.setAttribute('x', x);
      part.setAttribute('dy', String(i === 0 ? (-(lines.length - 1) / 2) * lineHeight : lineHeight));
      part.textContent = text.trimEnd();
      name.appendChild(part);
    });
  }
  // Some types' frames do not fit what they draw. A C4 diagram's viewBox keeps the width of its
  // widest possible row, hundreds of px wider than what it draws, and a journey's counts its left
  // margin twice and keeps 60 px under its lowest line: shrunk to the card, their text shrank with
  // that empty room. A pie's legend of many slices runs past the top and bottom of its frame, and
  // was cut. Such a frame is fitted to the drawing and a margin, on each axis where it is looser
  // than that or cuts into it. Other types fit their drawing closely already (mermaid's README's
  // ten diagrams), and measuring them is not free: getBBox took 55 ms of a sequence diagram's 280.
  const role = drawing.getAttribute('aria-roledescription');
  const misfit = ((role === 'c4' || role === 'journey') && natural !== undefined && natural > width) || role === 'pie';
  const content = natural !== undefined && misfit ? drawing.getBBox() : undefined;
  if (natural !== undefined && content && content.width > 0 && content.height > 0) {
    const margin = 8;
    const refits = (start: number, size: number, contentStart: number, contentSize: number) =>
      size - contentSize > 4 * margin || contentStart < start || contentStart + contentSize > start + size;
    const fittedWidth = refits(viewBox.x, viewBox.width, content.x, content.width) ? content.width + 2 * margin : viewBox.width;
    const fittedNatural = (natural * fittedWidth) / viewBox.width;
    if (fittedWidth !== viewBox.width) viewBox.x = content.x - margin;
    viewBox.width = fittedWidth;
    if (refits(viewBox.y, viewBox.height, content.y, content.height)) {
      viewBox.y = content.y - margin;
      viewBox.height = content.height + 2 * margin;
    }
    size(fittedNatural);
    drawing.dataset.natural = String(fittedNatural);
  }
  // A time axis (gantt) gets a label per tick, however close the ticks: where labels would
  // overprint, only every second, third, … keeps its label (the tick line stays).
  for (const axis of Array.from(drawing.querySelectorAll('g.grid'))) {
    const labels = Array.from(axis.querySelectorAll<SVGTextElement>('.tick text')).filter((label) => label.textContent?.trim());
    const boxes = labels.map((label) => label.getBoundingClientRect());
    let step = 1;
    for (let i = 1; i < boxes.length; i++) {
      const spacing = Math.abs(boxes[i]!.left + boxes[i]!.width / 2 - (boxes[i - 1]!.left + boxes[i - 1]!.width / 2));
      const needed = Math.max(boxes[i]!.width, boxes[i - 1]!.width) + 6;
      if (spacing > 0) step = Math.max(step, Math.ceil(needed / spacing));
    }
    for (const [i, label] of labels.entries()) {
      if (i % step !== 0) label.remove();
    }
  }
  // Every piece of text at its size as drawn: its font size times the scale of the drawing.
  let smallest = Infinity;
  for (const text of Array.from(drawing.querySelectorAll<SVGTextContentElement>('text, tspan'))) {
    const ownText = Array.from(text.childNodes).some((node) => node.nodeType === Node.TEXT_NODE && node.textContent!.trim() !== '');
    const matrix = text.getScreenCTM();
    if (!ownText || !matrix || text.getBoundingClientRect().width === 0) continue;
    smallest = Math.min(smallest, parseFloat(getComputedStyle(text).fontSize) * Math.hypot(matrix.a, matrix.b));
  }
  const box = drawing.getBoundingClientRect();
  // To a tenth of a px, as warnings name it: a drawing's scale comes out of its layout a hair under
  // 1 (0.999 for one drawn at its own size), and 10 px text must not count as under a 10 px floor.
  const measured = Number.isFinite(smallest) ? { smallestTextPx: Math.round(smallest * 10) / 10 } : {};
  return { ok: true, x: box.left + window.scrollX, y: box.top + window.scrollY, width: box.width, height: box.height, ...measured };
}

/**
 * Network handler of the diagram page: its document, its two scripts (fetched by the browser from
 * the ScriptServer) and the bundled fonts; nothing else.
 */
async function answerFromOwnFiles(route: PageRequest, origin: string, document: string, scripts: ScriptServer, refused: (url: string) => void): Promise<void> {
  const url = new URL(route.url);
  if (url.origin === origin) {
    if (url.pathname === '/') {
      return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', headers: { 'content-security-policy': contentSecurityPolicy(origin) }, body: document });
    }
    if (scripts.serves(url.pathname) && url.search === '') return route.continue();
    const fontFile = resolveFontFile(url.pathname);
    if (fontFile) {
      const body = await fs.readFile(fontFile).catch(() => undefined);
      if (body) return route.fulfill({ status: 200, contentType: 'font/woff2', body });
    }
  }
  refused(url.href);
  return route.abort();
}
