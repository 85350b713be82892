// Where the page broke the lines of every text block on the cards: each block's text, line by line,
// read character by character from the page's own layout (Range.getClientRects), and the checks a
// reader of Chinese and Japanese would make: no paragraph ends on a line of one or two characters,
// and no line break falls inside a word or a phrase.
import { coverDesigns } from '../../src/cards/cover/cover-designs.js';
import { fitCover, smallestDesignFit } from '../../src/cards/cover/fit-cover.js';
import { renderMarkdown } from '../../src/cards/markdown/render-markdown.js';
import type { CoverRequest } from '../../src/cards/request/cover-schema.js';
import { renderCards, type CardRenderRequest } from '../../src/cards/render/render-cards.js';
import type { RenderPage } from '../../src/cards/render/render-page.js';
import type { RunningService } from './service.js';

export interface BlockLines {
  /** Tag and class of the block, e.g. `p`, `h1.cover-title`. */
  block: string;
  /** The block's text, as the page holds it (no-break spaces as spaces). */
  text: string;
  /** Each line's text, in order, joined they are `text` without the spaces at the line ends. */
  lines: string[];
  /** Offsets in `text` where a line begins, after the first. */
  breaks: number[];
  /** Whether a line is wider than the block (a break could not be found). */
  overflows: boolean;
  /** A heading's copy for themes to lay over it (its `data-text`, zero-width spaces where it may break). */
  dataText?: string;
  /** The block goes on on the next card (autoSplit cut it): its last line here is not its last. */
  continues: boolean;
  /** The block goes on from the card before (autoSplit cut it): its first line here is not its first. */
  continued: boolean;
  /** It holds a list (an item with a sub-list): a cut between its items leaves its own lines whole. */
  holdsList: boolean;
  /** Its computed text-align. */
  align: string;
  /** The index of its card among the page's cards. */
  card: number;
  /** Nothing of the content follows it on its card: no other text block, code, image (or its placeholder), table or formula. */
  lastOnCard: boolean;
}

const blockSelector = 'p, li, h1, h2, h3, h4, h5, h6, dt, dd, figcaption, td, th';

/** Runs in the page: the lines of every text block of the cards on it. */
function linesInPage(selector: string): BlockLines[] {
  const range = document.createRange();
  const cards = Array.from(document.querySelectorAll('#cards > .card'));
  /** A paragraph that shows nothing (left empty where an image was moved out of it). */
  const blank = (element: Element) => element.localName === 'p' && (element.textContent ?? '').trim() === '' && !element.querySelector('img, svg');
  /** Whether anything drawn as content comes after `block` on its card. */
  const followed = (block: HTMLElement) => {
    const inner = block.closest('.card')!.querySelector('.card-content-inner')!;
    return Array.from(inner.querySelectorAll(`:is(${selector}, pre, img, svg, table, .katex-display, .image-placeholder)`)).some(
      (other) => !block.contains(other) && !other.contains(block) && (block.compareDocumentPosition(other) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0 && !blank(other),
    );
  };
  return Array.from(document.querySelectorAll<HTMLElement>(`#cards .card-content-inner :is(${selector})`), (block) => {
    let text = '';
    const breaks: number[] = [];
    let lineBottom = -Infinity;
    let overflows = false;
    const limit = block.getBoundingClientRect();
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      const owner = node.parentElement!;
      // The block's own text: not a nested block's (a sub-list), code, KaTeX's hidden MathML, or
      // the alt text of a missing image's chip (ellipsised: what it clips is not drawn).
      if (owner.closest(selector) !== block || owner.closest('pre, .katex-mathml, .sr-only, .image-placeholder')) continue;
      for (let offset = 0; offset < node.data.length; offset++) {
        const character = node.data[offset]!;
        range.setStart(node, offset);
        range.setEnd(node, offset + 1);
        const box = Array.from(range.getClientRects()).find((r) => r.width > 0 || r.height > 0);
        if (box && box.width > 0) {
          if (box.right > limit.right + 1 || box.left < limit.left - 1) overflows = true;
          // A character whose middle is below the current line's bottom starts the next line.
          const middle = (box.top + box.bottom) / 2;
          if (text.trim() !== '' && middle > lineBottom) breaks.push(text.length);
          if (middle > lineBottom) lineBottom = box.bottom;
          else lineBottom = Math.max(lineBottom, box.bottom);
        }
        text += character === '\u00a0' ? ' ' : character;
      }
    }
    const starts = [0, ...breaks];
    const lines = starts.map((start, index) => text.slice(start, starts[index + 1] ?? text.length).trim()).filter((line) => line !== '');
    const className = block.getAttribute('class');
    return {
      block: block.localName + (className ? `.${className.split(' ').join('.')}` : ''),
      text,
      lines,
      breaks,
      overflows,
      continues: block.classList.contains('split-continues'),
      continued: block.classList.contains('split-continued'),
      holdsList: block.querySelector('ul, ol') !== null,
      align: getComputedStyle(block).textAlign,
      card: cards.indexOf(block.closest('.card')!),
      lastOnCard: !followed(block),
      dataText: block.getAttribute('data-text') ?? undefined,
    };
  });
}

/** The lines of every text block on the cards the page holds now. */
export function readBlockLines(page: RenderPage): Promise<BlockLines[]> {
  return page.evaluate<BlockLines[]>(`(() => { const __name = (target) => target; return (${linesInPage.toString()})(${JSON.stringify(blockSelector)}); })()`);
}

type CardsRequest = Partial<Omit<CardRenderRequest, 'theme' | 'mode' | 'contentHtml'>> & { markdown: string; theme: string; themeMode?: string };

/**
 * Laid out, the cards are captured only when `capture` is true (to save them for a person to look
 * at): the lines are the layout's, which a capture does not change (it only sizes the viewport to
 * the card and scrolls to it), and capturing tall cards took most of the time. Answers the
 * captures and the number of cards.
 */
async function cardsOnPage(page: RenderPage, request: CardRenderRequest, capture: boolean): Promise<{ images: Buffer[]; cards: number }> {
  const laidOut = new Error('laid out');
  let cards = 0;
  const images = await renderCards(page, request, undefined, (count) => {
    cards = count;
    if (!capture) throw laidOut;
  }).catch((error: unknown) => {
    if (error !== laidOut) throw error;
    return [];
  });
  return { images: images.map((image) => image.data), cards };
}

/** Renders `request` (Markdown) on one of the service's warm pages and reads back its lines (captured with `capture`, see cardsOnPage). */
export async function renderLines(service: RunningService, request: CardsRequest, { capture = false } = {}): Promise<{ images: Buffer[]; cards: number; blocks: BlockLines[] }> {
  const { theme, mode } = service.app.cards.themes.resolve(request.theme, request.themeMode);
  const { html } = await renderMarkdown(request.markdown);
  return service.app.cards.renderer.run(AbortSignal.timeout(120_000), async (page) => {
    const { images, cards } = await cardsOnPage(
      page,
      {
        width: 440,
        height: 586,
        scale: 1,
        format: 'png',
        splitMode: 'noSplit',
        overHiddenMode: false,
        ...request,
        theme,
        mode,
        contentHtml: html,
      },
      capture,
    );
    return { images, cards, blocks: await readBlockLines(page) };
  });
}

/**
 * A paragraph of more than one line whose last line holds one or two characters (spaces not
 * counted), or, in the body text of Chinese, Japanese and Korean, one or two letters and their
 * punctuation ("焦虑。"). Headings and cover texts hold three characters, punctuation counted
 * (src/cards/markdown/cjk-phrases.ts, HeldEnd).
 */
export const shortLastLine = (block: BlockLines) => {
  const last = block.lines.at(-1)!;
  const counted = cjkLetter.test(last) && !/^h[1-6]|cover-|end-text/.test(block.block) ? /[\s\p{P}]/gu : /\s/gu;
  return block.lines.length > 1 && [...last.replace(counted, '')].length <= 2;
};

const cjkLetter = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * The breaks of `block` between two characters of one CJK segment (Chinese, Japanese or Korean
 * letters on either side; `boundaries` gives the offsets where segments of its text begin), each
 * with the text around it: `自|由`. Breaks at spaces and between Latin letters are the page's own,
 * and a segment longer than the block's longest line has to break somewhere.
 */
export function breaksInside(block: BlockLines, boundaries: (text: string) => Set<number>): string[] {
  const allowed = [...boundaries(block.text), block.text.length].sort((a, b) => a - b);
  const longestLine = Math.max(...block.lines.map((line) => line.length));
  // A line may always end at a space, or after a comma, stop, colon or closing bracket (a heading
  // broken at its punctuation, src/cards/render/paginate/heading-breaks.ts).
  return block.breaks
    .filter((offset) => !allowed.includes(offset) && !/\s/u.test(block.text[offset - 1] ?? ' ') && !/\s/u.test(block.text[offset] ?? ' '))
    .filter((offset) => !/[，、。！？；：｜）」』》】]/u.test(block.text[offset - 1] ?? ''))
    .filter((offset) => cjkLetter.test(block.text[offset - 1]!) || cjkLetter.test(block.text[offset]!))
    .filter((offset) => {
      const start = allowed.filter((boundary) => boundary < offset).at(-1) ?? 0;
      const end = allowed.find((boundary) => boundary > offset) ?? block.text.length;
      return end - start <= longestLine;
    })
    .map((offset) => `${block.text.slice(Math.max(0, offset - 6), offset)}|${block.text.slice(offset, offset + 6)}`);
}

/** Word boundaries of ICU's dictionary segmenter (what a reader takes as a word). */
export function wordBoundaries(locale: string): (text: string) => Set<number> {
  const segmenter = new Intl.Segmenter(locale, { granularity: 'word' });
  return (text) => new Set(Array.from(segmenter.segment(text), (segment) => segment.index));
}

/**
 * Renders the designs of a cover request as POST /api/generate/cover does (cover/cover.ts), each
 * fitted to its card, and reads back the lines of each (each captured with `capture`, see cardsOnPage).
 */
export async function renderCoverLines(service: RunningService, request: CoverRequest, { capture = false } = {}): Promise<Array<{ design: string; image?: Buffer; blocks: BlockLines[] }>> {
  const { theme, mode } = service.app.cards.themes.resolve(request.theme, request.themeMode);
  const card = { theme, mode, width: request.width, height: request.height, scale: request.scale };
  return service.app.cards.renderer.run(AbortSignal.timeout(120_000), async (page) => {
    const result = [];
    for (const design of coverDesigns(request)) {
      const contentHtml = await fitCover(page, { ...card, html: design.html, smallest: smallestDesignFit });
      const { images } = await cardsOnPage(page, { ...card, format: 'png', splitMode: 'noSplit', overHiddenMode: true, contentHtml }, capture);
      result.push({ design: design.name, image: images[0], blocks: await readBlockLines(page) });
    }
    return result;
  });
}
