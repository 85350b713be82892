// The page side of the pagination report (see ../pagination-report.ts): runs the service's
// pagination in the page, then describes each card it built (its text, markup, where every line
// and image is drawn, where in the document it begins), so tests can check the cards against the
// page's own geometry. Bundled by esbuild like the service's page script: it may import the
// modules of src/cards/render/paginate/ and nothing that needs Node.
import { contentLimit } from '../../../src/cards/render/paginate/card-frame.js';
import { lineHeightOf } from '../../../src/cards/render/paginate/css.js';
import { buildCards } from '../../../src/cards/render/paginate/index.js';
import type { Piece } from '../../../src/cards/render/paginate/pieces.js';
import type { PaginationInput } from '../../../src/cards/render/paginate/types.js';
import type { CardReport, ReportedPagination } from '../pagination-report.js';

/** The service's pagination of `input`, with a description of every card it built. */
export async function paginateWithReport(input: PaginationInput): Promise<ReportedPagination> {
  // The document's text as the content holds it, before any card is built.
  const template = document.createElement('template');
  template.innerHTML = input.contentHtml;
  const documentText = template.content.textContent ?? '';
  const { boxes, needed, cards, starts, pieces, available } = await buildCards(input);
  const described = cards.map((card, i) => {
    const start = starts[i]!;
    return describeCard(card, start.piece === undefined ? 'start' : describeStart(pieces, start.piece, start.sectionStart));
  });
  return { boxes, needed, report: { documentText, available, cards: described } };
}

/**
 * Where piece `i` begins, in words: `p#intro line 4`, `table#t row 2`, `ul#tiles grid row 1`,
 * `div.code-header`; a paragraph or list item from its first line is just `p#intro`.
 */
function describeStart(pieces: Piece[], i: number, sectionStart: boolean): string {
  if (sectionStart) return 'start';
  const piece = pieces[i]!;
  const name = (el: Element) => el.tagName.toLowerCase() + (el.id ? `#${el.id}` : el.classList.length > 0 ? `.${el.classList[0]}` : '');
  if (piece.kind === 'line') return piece.line === 0 ? name(piece.run!.container) : `${name(piece.run!.container)} line ${piece.line}`;
  if (piece.kind === 'row') return `${name(piece.table!)} row ${piece.row}`;
  if (piece.kind === 'gridRow') return `${name(piece.path[piece.path.length - 1]!)} grid row ${piece.row}`;
  return name(piece.el);
}

function describeCard(card: HTMLElement, startsAt: string): CardReport {
  const { top: cardTop, left: cardLeft } = card.getBoundingClientRect();
  const cardInner = card.querySelector('.card-content-inner')!;
  const limit = contentLimit(card);
  const range = document.createRange();
  const boxes: CardReport['boxes'] = [];
  let last: Node | undefined;
  const walker = document.createTreeWalker(cardInner, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType === Node.TEXT_NODE) {
      if (!/\S/.test((node as Text).data)) continue;
      range.selectNodeContents(node);
      const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0 && r.height > 0);
      if (rects.length === 0) continue;
      last = node;
      // The line box of the text (its line-height, centred on the glyphs' content area): what the
      // layout places, whereas the content area of a tall font may reach past it.
      // Text inside a block scaled down to fit the card or the room left is reported as drawn: its glyphs' boxes.
      const scaled = node.parentElement!.closest('[style*="transform"], [style*="zoom"]') !== null;
      const lineHeight = scaled ? 0 : lineHeightOf(node.parentElement!);
      for (const r of rects) {
        const centre = (r.top + r.bottom) / 2 - cardTop;
        const half = lineHeight > 0 ? lineHeight / 2 : r.height / 2;
        boxes.push({ top: centre - half, bottom: centre + half, left: r.left - cardLeft, right: r.right - cardLeft, kind: 'text', text: (node as Text).data.slice(0, 40) });
      }
    } else if ((node as Element).tagName === 'IMG') {
      const r = (node as Element).getBoundingClientRect();
      last = node;
      boxes.push({ top: r.top - cardTop, bottom: r.bottom - cardTop, left: r.left - cardLeft, right: r.right - cardLeft, kind: 'img', text: '' });
    }
  }
  const lastElement = last ? (last.nodeType === Node.ELEMENT_NODE ? (last as Element) : last.parentElement) : null;
  const heading = lastElement?.closest('h1, h2, h3, h4, h5, h6');
  const copy = cardInner.cloneNode(true) as Element;
  for (const repeated of Array.from(copy.querySelectorAll('[data-split-repeat]'))) repeated.remove();
  return {
    text: copy.textContent ?? '',
    html: cardInner.innerHTML,
    contentTop: limit.top - cardTop,
    contentBottom: limit.bottom - cardTop,
    boxes,
    endsInHeading: heading && cardInner.contains(heading) ? heading.tagName : '',
    label: card.querySelector('.page')?.textContent ?? '',
    startsAt,
  };
}
