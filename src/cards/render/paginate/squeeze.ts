// Vertical squeeze: the space between the blocks of a card may shrink a little, as a typesetter's
// glue does, so that the card holds the line or two that would otherwise break a rule (a paragraph's
// last line alone at the head of the next card, a heading left over its text, a sentence cut from
// the code it introduces). Only block margins shrink, each by at most `maxSqueeze`; text, line
// spacing, padding and pictures keep their size. card-cost.ts prices a squeezed card so that a
// card is squeezed to keep a rule or to spare a card left half empty, not to hold a line more.
//
// A theme whose text sits on ruled lines says so with `--ruled-lines: on` on its card (notebook.css):
// a shrunk margin would lift the text off its lines, so its cards are never squeezed.
import { px, styleOf } from './css.js';
import type { Piece } from './pieces.js';

/** How much of each margin between blocks may give way on a crowded card. */
export const maxSqueeze = 1 / 3;

/** The elements a piece is inside of, and the piece's own element. */
const chainOf = (piece: Piece): Element[] => (piece.path.at(-1) === piece.el ? piece.path : [...piece.path, piece.el]);

/**
 * The margin between pieces j-1 and j: the largest of the bottom margins of the blocks that end
 * between them and the top margins of those that begin, which is what collapses into the gap, and
 * never more than the gap itself.
 */
function marginBetween(before: Piece, after: Piece): number {
  const a = chainOf(before);
  const b = chainOf(after);
  let margin = 0;
  for (const el of a) if (!b.includes(el)) margin = Math.max(margin, px(styleOf(el).marginBottom));
  for (const el of b) if (!a.includes(el)) margin = Math.max(margin, px(styleOf(el).marginTop));
  return Math.max(0, Math.min(margin, after.top - before.bottom));
}

/** How far the cards cut from a document may shrink: its margins between pieces, summed. */
export class SqueezeRoom {
  /** sums[j]: the margins between pieces 0 … j, summed (between j-1 and j last). */
  private readonly sums: number[] = [0];

  constructor(pieces: Piece[], inner: Element) {
    const off = styleOf(inner).getPropertyValue('--ruled-lines').trim() === 'on';
    for (let j = 1; j < pieces.length; j++) this.sums[j] = this.sums[j - 1]! + (off ? 0 : marginBetween(pieces[j - 1]!, pieces[j]!));
  }

  /** How many px a card of pieces s … c-1 may give back by squeezing the margins between them. */
  of(s: number, c: number): number {
    return maxSqueeze * (this.sums[c - 1]! - this.sums[s]!);
  }
}

/**
 * Shrinks the margins of a built card's blocks by the fraction of `maxSqueeze` that gives back
 * `need` px of the `room` SqueezeRoom promised. Vertical margins of inline boxes do nothing, and a
 * formula's or drawing's inner boxes are not blocks of the document.
 */
export function squeezeCard(card: HTMLElement, need: number, room: number): void {
  const fraction = maxSqueeze * Math.min(1, need / room);
  // Every margin is read before any is written: a write between reads would lay the card out again.
  const shrunk: [HTMLElement, string, number][] = [];
  for (const el of Array.from(card.querySelectorAll<HTMLElement>('.card-content-inner *'))) {
    if (el.closest('svg, .katex, math') !== null) continue;
    const cs = styleOf(el);
    if (cs.display === 'inline' || cs.display === 'none') continue;
    for (const side of ['margin-top', 'margin-bottom']) {
      const margin = px(cs.getPropertyValue(side));
      if (margin > 0) shrunk.push([el, side, margin * (1 - fraction)]);
    }
  }
  for (const [el, side, margin] of shrunk) el.style.setProperty(side, `${margin}px`, 'important');
}
