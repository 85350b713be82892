// Renders a request through the service's own pipeline on one of its warm pages and reads back
// what a reader would check on the images: where every line of text, table word and theme
// decoration was drawn, card by card. Shared by the corpus and card-size tests.
import { layoutFontScale } from '../../src/cards/request/resolve.js';
import { renderMarkdown } from '../../src/cards/markdown/render-markdown.js';
import { renderCards, type RenderedImage, type SplitMode } from '../../src/cards/render/render-cards.js';
import type { RenderPage } from '../../src/cards/render/render-page.js';
import { pseudoElementBoxes, textFonts, type PseudoElementBox, type TextFonts } from './page-inspection.js';
import { readBlockLines, type BlockLines } from './line-breaks.js';
import type { RunningService } from './service.js';
import type { Cards } from '../../src/cards/index.js';

export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface TextLine extends Rect {
  text: string;
  /** The line belongs to a heading (the card's title). */
  heading: boolean;
}

export interface CardGeometry {
  card: Rect;
  /** The content box of .card-content: where text may be drawn. */
  content: Rect;
  /** Whether the card is exactly its height (split cards, overHiddenMode). */
  fixedHeight: boolean;
  /** Where overHiddenMode ended the content (page y of the cut), when it did not fit. */
  truncatedAt?: number;
  lines: TextLine[];
  /** The border boxes of the tables, and the font size of every table cell, in CSS px. */
  tables: Rect[];
  tableFontSizes: number[];
  /** Per table: drawn stacked (fit-tables.ts), and the labels its body cells carry. */
  tableForms: Array<{ stacked: boolean; labels: string[] }>;
  /** Words of table cells drawn on more than one line, and whether the cell allows it. */
  brokenWords: Array<{ word: string; allowed: boolean }>;
  decorations: Decoration[];
  /** The lowest bottom edge of anything drawn in the content (text, code frame, image, table). */
  contentBottom: number;
  /** Code blocks, quotes, tables and alerts on the card holding no content line of their own (only a frame, header, title or label). */
  emptyFrames: string[];
  /** Text drawn smaller than the request's minimum (see GeometryRequest), with its size in CSS px. */
  smallText: string[];
  /** The card shows an image, a diagram or a formula (something besides lines of text). */
  hasPicture: boolean;
  /** It shows one outside its headings (a heading's logo or badge is part of the heading). */
  pictureOutsideHeadings: boolean;
  /**
   * The block the card begins by continuing from the card before (its innermost element marked
   * split-continued: a list, a paragraph, a quote, a code block), with the height of its rest here.
   */
  continuedBlock?: { name: string; height: number; text: string };
}

export interface Decoration extends PseudoElementBox {
  /** Drawn soft (blurred or mostly transparent): a wash or glow, which may run off the card. */
  soft: boolean;
  /** Text lines it is painted over (not under), by the page's own hit testing: indexes into the card's `lines`. */
  covers: number[];
  /** It draws text (a header title, a date, a page label). */
  label: boolean;
  /** A text label (header title, date, page label) that wrapped onto more lines than it has room for. */
  wrapped: boolean;
}

export interface GeometryRequest {
  markdown: string;
  theme?: string;
  themeMode?: string;
  width?: number;
  height?: number;
  splitMode?: SplitMode;
  overHiddenMode?: boolean;
  fontScale?: number;
  scale?: number;
}

/** What to read besides the cards' geometry. */
interface GeometryOptions {
  /** Chromium's report of the faces that drew every text run (CSS.getPlatformFontsForNode). */
  fonts?: boolean;
  lines?: boolean;
  /**
   * false: the render stops once the cards are laid out, before any capture, and no image comes
   * back (a 2,000×4,000 card's capture costs far more than its layout).
   */
  capture?: boolean;
}

/** Renders the request and reads back every card's geometry, and what `options` asks for. */
export async function renderWithGeometry(
  service: Pick<RunningService, 'app'>,
  request: GeometryRequest,
  options: GeometryOptions = {},
): Promise<{ images: RenderedImage[]; cards: CardGeometry[]; fonts: TextFonts[]; blocks: BlockLines[] }> {
  return renderGeometryWith(service.app.cards, request, options);
}

/** renderWithGeometry on a core of its own (scripts/corpus.ts has no HTTP service). */
export async function renderGeometryWith(
  core: Pick<Cards, 'themes' | 'renderer'>,
  request: GeometryRequest,
  options: GeometryOptions = {},
): Promise<{ images: RenderedImage[]; cards: CardGeometry[]; fonts: TextFonts[]; blocks: BlockLines[] }> {
  const { theme, mode } = core.themes.resolve(request.theme, request.themeMode);
  const { html } = await renderMarkdown(request.markdown);
  const size = { width: request.width ?? 440, height: request.height ?? 586, fontScale: request.fontScale ?? 1 };
  const fontScale = layoutFontScale(size);
  const laidOut = new Error('laid out');
  return core.renderer.run(AbortSignal.timeout(120_000), async (page) => {
    const rendering = renderCards(page, {
      theme,
      mode,
      width: size.width,
      height: size.height,
      scale: request.scale ?? 1,
      // As the service lays the request out: a card smaller than the themes are drawn for is laid
      // out at that smallest size and drawn scaled down (request/resolve.ts).
      fontScale,
      format: 'png',
      splitMode: request.splitMode ?? 'noSplit',
      overHiddenMode: request.overHiddenMode ?? false,
      contentHtml: html,
    }, undefined, () => {
      if (options.capture === false) throw laidOut;
    });
    const images = await rendering.catch((error: unknown) => {
      if (error !== laidOut) throw error;
      return [];
    });
    const cards = await readGeometry(page, minTextPx);
    const fonts = options.fonts ? await textFonts(page) : [];
    const blocks = options.lines ? await readBlockLines(page) : [];
    return { images, cards, fonts, blocks };
  });
}

/**
 * The smallest text a card may draw, in the CSS px of its layout: the floor docs/api.md documents
 * for diagrams, below the footer's page label (11–12 px), the themes' smallest text. fontScale
 * scales the whole card (card-markup.ts lays it out at width ÷ fontScale), not the CSS px.
 */
const minTextPx = 10;

async function readGeometry(page: RenderPage, smallestTextPx: number): Promise<CardGeometry[]> {
  const decorations = (await pseudoElementBoxes(page)).filter(isCardDecoration);
  // `__name`: the TypeScript loader wraps named inner functions in it (see src/cards/render/paginate.ts).
  return page.evaluate<CardGeometry[]>(`(() => { const __name = (target) => target; return (${inPage.toString()})(${JSON.stringify(decorations)}, ${smallestTextPx}); })()`);
}

/** Runs in the page: geometry of every card in #cards, in CSS px from the page's top-left corner. */
function inPage(decorations: PseudoElementBox[], smallestTextPx: number): CardGeometry[] {
  window.scrollTo(0, 0);
  // Hit testing sees decorations only where they take pointer events; make them all take them.
  const probeStyle = document.createElement('style');
  probeStyle.textContent = '#cards *::before, #cards *::after { pointer-events: auto !important; }';
  document.head.appendChild(probeStyle);
  const rect = (r: DOMRect) => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
  // The box of the nearest element that cuts its text with an ellipsis, if any (text-overflow is not inherited).
  const ellipsisBoxes = new Map<Element, DOMRect | undefined>();
  const ellipsisBoxOf = (el: Element): DOMRect | undefined => {
    if (!ellipsisBoxes.has(el)) {
      const cs = getComputedStyle(el);
      const cuts = cs.textOverflow === 'ellipsis' && cs.overflowX !== 'visible';
      ellipsisBoxes.set(el, cuts ? el.getBoundingClientRect() : el.parentElement && !el.classList.contains('card') ? ellipsisBoxOf(el.parentElement) : undefined);
    }
    return ellipsisBoxes.get(el);
  };
  const px = (value: string) => parseFloat(value) || 0;
  /** The CSS zoom an element is drawn at, its ancestors' included (Chromium 128 and later). */
  const cssZoom = (el: Element) => (el as Element & { currentCSSZoom?: number }).currentCSSZoom ?? 1;
  /**
   * How much smaller (or larger) than its font-size an element's text is drawn on its card: the
   * zoom and the transforms (a block scaled down to fit a card, fit-to-card.ts) between the card and
   * the element. The card's own zoom (a small card drawn as a larger one scaled down) is not counted.
   */
  const scales = new Map<Element, number>();
  const drawnScale = (el: Element, card: Element): number => {
    if (el === card || !el.parentElement) return 1;
    let scale = scales.get(el);
    if (scale === undefined) {
      const transform = getComputedStyle(el).transform;
      const matrix = transform && transform !== 'none' ? new DOMMatrix(transform) : undefined;
      scale = (matrix ? Math.hypot(matrix.a, matrix.b) : 1) * drawnScale(el.parentElement, card);
      scales.set(el, scale);
    }
    return scale;
  };
  /**
   * The topmost element at a point of the page. elementFromPoint sees only the viewport, which is
   * as tall as the last card captured (or the layout's, when nothing was): the point is scrolled
   * into it, and the page scrolled back, so every box read here stays in page coordinates.
   */
  const elementAt = (x: number, y: number) => {
    window.scrollTo(Math.max(0, x - window.innerWidth / 2), Math.max(0, y - window.innerHeight / 2));
    const hit = document.elementFromPoint(x - window.scrollX, y - window.scrollY);
    window.scrollTo(0, 0);
    return hit;
  };
  const range = document.createRange();
  const wordPattern = /[\p{Script=Latin}\p{N}][\p{Script=Latin}\p{N}.,%]*/gu;
  const result = Array.from(document.querySelectorAll('#cards > .card'), (card, cardIndex) => {
    const content = card.querySelector('.card-content')!;
    const cs = getComputedStyle(content);
    const box = content.getBoundingClientRect();
    const lines: TextLine[] = [];
    const brokenWords: Array<{ word: string; allowed: boolean }> = [];
    const smallText: string[] = [];
    const walker = document.createTreeWalker(card.querySelector('.card-content-inner')!, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      if (!/\S/.test(node.data) || node.parentElement!.closest('.katex-mathml, .sr-only')) continue;
      range.selectNodeContents(node);
      const heading = node.parentElement!.closest('h1, h2, h3') !== null;
      // Half a pixel of rounding allowed: fontScale multiplies sizes like 11 px by fractions. A
      // block scaled down to fit the card draws its text smaller than its font-size says.
      const parent = node.parentElement!;
      const size = (px(getComputedStyle(parent).fontSize) * drawnScale(parent, card) * cssZoom(parent)) / cssZoom(card);
      if (size < smallestTextPx - 0.5 && !node.parentElement!.closest('.katex')) smallText.push(`"${node.data.trim().slice(0, 30)}" at ${size.toFixed(1)} px`);
      // Text that ends in an ellipsis (a missing image's alt text in its chip) is drawn only within its box.
      const clip = ellipsisBoxOf(parent);
      for (const r of Array.from(range.getClientRects())) {
        const drawn = clip ? { left: Math.max(r.left, clip.left), right: Math.min(r.right, clip.right), top: r.top, bottom: r.bottom } : rect(r);
        if (drawn.right - drawn.left > 0 && r.height > 0) lines.push({ ...drawn, text: node.data.slice(0, 30), heading });
      }
      const cell = node.parentElement!.closest('td, th');
      if (!cell) continue;
      for (const match of node.data.matchAll(wordPattern)) {
        range.setStart(node, match.index!);
        range.setEnd(node, match.index! + match[0].length);
        const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
        if (tops.size > 1) brokenWords.push({ word: match[0], allowed: cell.matches('.table-break-words, .table-break-words *') });
      }
    }
    const owners = [card, ...Array.from(card.querySelectorAll('.card-header, .card-content, .card-footer, .card-footer-inner, .page'))];
    const cardDecorations: Decoration[] = decorations
      .filter((d) => d.card === cardIndex)
      .map((d) => {
        const owner = owners.find((el) => (el.getAttribute('class') ?? el.localName) === d.owner);
        const style = owner ? getComputedStyle(owner, `::${d.pseudo}`) : undefined;
        const soft = style ? /blur/.test(style.filter) || parseFloat(style.opacity) < 0.6 : false;
        // A label (text content) taller than two of its lines has wrapped: it no longer fits.
        const label = style ? /^["']/.test(style.content) && style.content.length > 3 && !/pre/.test(style.whiteSpace) && !/vertical/.test(style.writingMode) : false;
        const lineHeight = style ? parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.3 : 0;
        const wrapped = label && d.bottom - d.top - (parseFloat(style!.paddingTop) || 0) - (parseFloat(style!.paddingBottom) || 0) > lineHeight * 1.9;
        const covers: number[] = [];
        for (const [index, line] of lines.entries()) {
          const left = Math.max(line.left, d.left) + 1;
          const right = Math.min(line.right, d.right) - 1;
          const top = Math.max(line.top, d.top) + 1;
          const bottom = Math.min(line.bottom, d.bottom) - 1;
          if (left >= right || top >= bottom) continue;
          // On top of the text where the topmost thing hit is not the text's own element.
          const hit = elementAt((left + right) / 2, (top + bottom) / 2);
          if (hit && !hit.closest('.card-content-inner')) covers.push(index);
        }
        return { ...d, soft, covers, wrapped, label };
      });
    const pictures = Array.from(card.querySelectorAll('.card-content-inner :is(img, svg, canvas, .katex-display, .image-placeholder)'));
    return {
      decorations: cardDecorations,
      card: rect(card.getBoundingClientRect()),
      content: {
        left: box.left + px(cs.borderLeftWidth) + px(cs.paddingLeft),
        top: box.top + px(cs.borderTopWidth) + px(cs.paddingTop),
        right: box.right - px(cs.borderRightWidth) - px(cs.paddingRight),
        bottom: box.bottom - px(cs.borderBottomWidth) - px(cs.paddingBottom),
      },
      fixedHeight: card.classList.contains('fixed-height'),
      tables: Array.from(card.querySelectorAll('.card-content-inner table'), (table) => rect(table.getBoundingClientRect())),
      tableFontSizes: Array.from(card.querySelectorAll('.card-content-inner :is(th, td)'), (cell) => px(getComputedStyle(cell).fontSize)),
      tableForms: Array.from(card.querySelectorAll('.card-content-inner table'), (table) => ({
        stacked: table.classList.contains('table-stacked'),
        labels: Array.from(table.querySelectorAll('td[data-label]'), (cell) => getComputedStyle(cell, '::before').content),
      })),
      truncatedAt: card.classList.contains('content-truncated')
        ? card.querySelector('.card-content-inner')!.getBoundingClientRect().top + px(getComputedStyle(card.querySelector('.card-content-inner')!).getPropertyValue('--truncate-at'))
        : undefined,
      lines,
      brokenWords,
      smallText,
      hasPicture: pictures.length > 0,
      pictureOutsideHeadings: pictures.some((picture) => picture.closest('h1, h2, h3, h4, h5, h6') === null),
      continuedBlock: (() => {
        // Blocks only: an inline element (a code block's <code>) measures one line box, not the rest.
        const blocks = Array.from(card.querySelectorAll('.card-content-inner .split-continued')).filter((el) => !getComputedStyle(el).display.startsWith('inline'));
        const continued = blocks.filter((el) => !blocks.some((other) => other !== el && el.contains(other)));
        const block = continued[0];
        if (!block) return undefined;
        const className = block.getAttribute('class')!.split(' ').filter((name) => !name.startsWith('split-'));
        return { name: block.localName + className.map((name) => `.${name}`).join(''), height: block.getBoundingClientRect().height, text: (block.textContent ?? '').trim() };
      })(),
      contentBottom: Math.max(box.top, ...Array.from(card.querySelectorAll('.card-content-inner *'), (el) => el.getBoundingClientRect()).filter((r) => r.width > 0 && r.height > 0).map((r) => r.bottom)),
      emptyFrames: Array.from(card.querySelectorAll('.card-content-inner :is(pre, blockquote, table, .markdown-alert)'))
        .filter((frame) => {
          // A code block's header (dots, language), a table's header row and an alert's title are labels, not content.
          if (frame.classList.contains('markdown-alert')) return !Array.from(frame.children).some((child) => !child.classList.contains('markdown-alert-title') && /\S/.test(child.textContent ?? ''));
          const body = frame.tagName === 'PRE' ? frame.querySelector('code') : frame.tagName === 'TABLE' ? frame.querySelector('tbody') : frame;
          return !body || !/\S/.test(body.textContent ?? '');
        })
        .map((frame) => `${frame.tagName.toLowerCase()} "${(frame.textContent ?? '').trim().slice(0, 30)}"`),
    };
  });
  probeStyle.remove();
  return result;
}

export const width = (r: Rect) => r.right - r.left;
export const height = (r: Rect) => r.bottom - r.top;

export function intersects(a: Rect, b: Rect, tolerance = 1): boolean {
  return a.left < b.right - tolerance && b.left < a.right - tolerance && a.top < b.bottom - tolerance && b.top < a.bottom - tolerance;
}

export function inside(inner: Rect, outer: Rect, tolerance = 1): boolean {
  return inner.left >= outer.left - tolerance && inner.right <= outer.right + tolerance && inner.top >= outer.top - tolerance && inner.bottom <= outer.bottom + tolerance;
}

/**
 * A decoration that is the card's paper, frame or wash (it covers most of the card) rather than a
 * discrete ornament: it lies under the text by design, and edges cut it as they cut the paper.
 */
export function isBackdrop(decoration: Rect, card: Rect): boolean {
  return width(decoration) >= width(card) * 0.8 && height(decoration) >= height(card) * 0.6;
}

/** A strip running the whole width or height of the card (a header bar, a hazard stripe, a spine). */
export function isBand(decoration: Rect, card: Rect): boolean {
  return width(decoration) >= width(card) * 0.98 || height(decoration) >= height(card) * 0.98;
}

/** Drawn by the card's frame (card, header, content box, footer, page label), not by the Markdown. */
export function isCardDecoration(d: PseudoElementBox): boolean {
  return /^(card|card-header|card-content|card-footer|card-footer-inner|page)(\s|$)/.test(d.owner);
}

/** Problems a reader would see on a card: text past an edge, decorations cut or over the text. */
export function layoutProblems(card: CardGeometry, label: string): string[] {
  const problems: string[] = [];
  // overHiddenMode hides what lies past its cut, though the page still lays it out there.
  const end = Math.min(card.content.bottom, card.truncatedAt ?? Number.POSITIVE_INFINITY);
  const visible = card.lines.filter((line) => line.bottom > card.content.top && line.top < end);
  for (const line of visible) {
    if (!inside(line, card.card)) problems.push(`${label}: text "${line.text}" crosses the card edge`);
  }
  const ornaments = card.decorations.filter((d) => width(d) >= 1 && height(d) >= 1 && !isBackdrop(d, card.card));
  const name = (d: Decoration) => `${d.owner.replace(/^card-/, '').split(' ')[0]}::${d.pseudo} (${Math.round(width(d))}×${Math.round(height(d))})`;
  for (const d of ornaments) {
    const where = `${label}: ${name(d)}`;
    if (!d.soft && !isBand(d, card.card) && !inside(d, card.card)) problems.push(`${where} is cut by the card edge`);
    if (d.wrapped) problems.push(`${where} is a label that no longer fits on its line`);
    // By line, not by text: the lines of one paragraph share their label, and one past overHiddenMode's cut is hidden.
    const visibleCovered = d.covers.map((index) => card.lines[index]!).filter((line) => visible.includes(line));
    if (visibleCovered.length > 0) problems.push(`${where} is drawn over the text "${visibleCovered[0]!.text}"`);
  }
  // A label of the header, of the footer or of the card itself never runs into another of its ornaments. (Ornaments
  // without text may overlap: a fan and its medallion are drawn as one emblem.)
  for (const part of ['card-header', 'card-footer', 'card ']) {
    const own = ornaments.filter((d) => d.owner.startsWith(part) && !d.soft && !isBand(d, card.card));
    for (let i = 0; i < own.length; i++) {
      for (let j = i + 1; j < own.length; j++) {
        if ((own[i]!.label || own[j]!.label) && intersects(own[i]!, own[j]!, 2)) problems.push(`${label}: ${name(own[i]!)} runs into ${name(own[j]!)}`);
      }
    }
  }
  return problems;
}
