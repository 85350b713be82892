// Test-only: a description of each built card (its text, markup, where every line and image is
// drawn, where in the document it begins), so tests can check the cards against the page's own
// geometry. Only the reporting build of the page script contains this module
// (pagination-script.ts); the service's build leaves it out.
import { contentLimit } from './card-frame.js';
import { lineHeightOf } from './css.js';
import type { Piece } from './pieces.js';
import type { CardReport } from './types.js';

/**
 * Where piece `i` begins, in words: `p#intro line 4`, `table#t row 2`, `ul#tiles grid row 1`,
 * `div.code-header`; a paragraph or list item from its first line is just `p#intro`.
 */
export function describeStart(pieces: Piece[], i: number, sectionStart: boolean): string {
  if (sectionStart) return 'start';
  const piece = pieces[i]!;
  const name = (el: Element) => el.tagName.toLowerCase() + (el.id ? `#${el.id}` : el.classList.length > 0 ? `.${el.classList[0]}` : '');
  if (piece.kind === 'line') return piece.line === 0 ? name(piece.run!.container) : `${name(piece.run!.container)} line ${piece.line}`;
  if (piece.kind === 'row') return `${name(piece.table!)} row ${piece.row}`;
  if (piece.kind === 'gridRow') return `${name(piece.path[piece.path.length - 1]!)} grid row ${piece.row}`;
  return name(piece.el);
}

export function describeCard(card: HTMLElement, startsAt: string): CardReport {
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
      // Text inside a block scaled down to fit the card is reported as drawn: its glyphs' boxes.
      const scaled = node.parentElement!.closest('[style*="transform"]') !== null;
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
