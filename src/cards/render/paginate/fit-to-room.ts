// A diagram, image or table that does not fit the room left at the foot of a card is scaled down
// to fit it when it stays legible: to no less than `legibleScale` of the size it is laid out at, a
// table's text to no less than `smallestTableText`, a diagram's text to no less than the diagrams'
// floor and the diagram to no less than `smallestDiagramScale` (README.md, "Split modes").
// Otherwise it moves to the next card whole, with its heading (the keep-with-next rule).
// card-cost.ts weighs a card ending in such a "tail" with it scaled; the card assembler scales the
// copy on the card, never the document.
import { diagramLimits } from '../../diagrams/diagram-limits.js';
import { px, styleOf } from './css.js';
import { isCaptionLine, isImage } from './piece-kinds.js';
import type { Piece } from './pieces.js';

/**
 * The smallest scale a tail may be drawn at: a diagram's 16 px labels become 13 px, a table's 14 px
 * text 11 px, about the smallest a phone screen shows comfortably.
 */
export const legibleScale = 0.8;

/**
 * A diagram, whose smallest text is known, may be scaled further than other pictures: as far as its
 * text stays at the diagrams' floor, but to no less than this, where it would read as a thumbnail.
 */
const smallestDiagramScale = 0.6;

/** A table's text is never scaled below 11 px (its own size may already be down to 12 px, see fit-tables.ts). */
const smallestTableText = 11;

/** Content that may be scaled down to the room left: it ends at some piece and began at piece `first`. */
export interface Tail {
  first: number;
  /** The element to scale: a picture itself, or a diagram's figure, or a table. */
  el: Element;
  /** Its height in the document, in px. */
  height: number;
  /** The smallest scale it stays legible at. */
  floor: number;
}

/** A card's tail and the scale it is drawn at there. */
export interface ScaledTail {
  tail: Tail;
  scale: number;
}

/** Scaling already applied (fit-to-card.ts's, to a block taller than a card): such a block is not scaled twice. */
const alreadyScaled = (el: Element): boolean => (el as HTMLElement).style.transform !== '';

/**
 * The tail that ends at each piece, if any: a picture alone in its paragraph, a picture or figure
 * block, a row of a folded diagram, the first slice of a cut one (the others keep the size of
 * the slices before them) or its last (the whole diagram, when it begins on the same card), an
 * unsplit table, or the last row of a table (the whole table, when it begins on the same card).
 * A card that ends in a picture's caption, or in a paragraph of one or two lines right after such
 * a tail, may scale the tail above it: a chart shrunk a little rather than its closing line alone
 * on the next card.
 */
export function tailsOf(pieces: Piece[]): (Tail | undefined)[] {
  const tails: (Tail | undefined)[] = [];
  pieces.forEach((piece, i) => {
    const above = i - (piece.line ?? 0) - 1;
    if (isCaptionLine(pieces, i)) tails[i] = tails[above];
    else tails[i] = tailEndingAt(pieces, i) ?? (endsShortParagraph(piece) && above >= 0 ? tailEndingAt(pieces, above) : undefined);
  });
  return tails;
}

/** The last line of a paragraph of one or two lines. */
function endsShortParagraph(piece: Piece): boolean {
  return piece.kind === 'line' && piece.run!.container.tagName === 'P' && piece.run!.lines.length <= 2 && piece.line === piece.run!.lines.length - 1;
}

function tailEndingAt(pieces: Piece[], i: number): Tail | undefined {
  const piece = pieces[i]!;
  let el: Element | undefined;
  let first = i;
  if (piece.kind === 'line' && isImage(piece)) el = piece.run!.nodes.find((node) => node.nodeType === Node.ELEMENT_NODE) as Element;
  else if (piece.kind === 'block' && (isImage(piece) || piece.el.tagName === 'TABLE' || piece.el.matches('.diagram-row, .diagram-slice:first-child'))) el = piece.el;
  else if (piece.kind === 'block' && piece.el.matches('.diagram-slice:last-child')) {
    // The last slice of a cut diagram: the whole diagram, when it begins on the same card.
    el = piece.el.parentElement!;
    first = i - Array.from(el.children).indexOf(piece.el);
  } else if (piece.kind === 'row' && piece.row === piece.rowCount! - 1) {
    el = piece.table!;
    first = i - piece.row!;
  }
  if (!el || alreadyScaled(el)) return undefined;
  const floor = el.tagName === 'TABLE' ? Math.max(legibleScale, smallestTableText / px(styleOf(el).fontSize)) : pictureFloor(el);
  return { first, el, height: el.getBoundingClientRect().height, floor };
}

/** A picture's smallest scale: a diagram's where its text reaches the floor (within smallestDiagramScale), any other's legibleScale. */
function pictureFloor(el: Element): number {
  const textFloor = diagramFloor(el);
  return textFloor > 0 ? Math.max(smallestDiagramScale, textFloor) : legibleScale;
}

/**
 * The smallest scale a diagram (its figure, its picture, a row of a folded one or a slice) keeps
 * its text at the diagrams' floor at: its figure says how large its smallest text is laid out
 * (data-text-px, markdown/mermaid-diagrams.ts), and a picture may already be drawn smaller than
 * that. 0 for any other picture.
 */
function diagramFloor(el: Element): number {
  const figure = el.closest<HTMLElement>('figure.diagram');
  const textPx = Number(figure?.dataset.textPx);
  if (!figure || !(textPx > 0)) return 0;
  const img = el.tagName === 'IMG' ? el : el.querySelector('img');
  const laidOut = Number(img?.getAttribute('width'));
  const shown = img?.getBoundingClientRect().width ?? 0;
  const drawnAt = laidOut > 0 && shown > 0 ? Math.min(1, shown / laidOut) : 1;
  return diagramLimits.minTextPx / (textPx * drawnAt);
}

/**
 * The scale at which `tail` gives back `overflow` px, or undefined when that is below the legible
 * floor.
 */
export function scaleToGiveBack(tail: Tail, overflow: number): number | undefined {
  const scale = Math.floor(((tail.height - overflow) / tail.height) * 1000) / 1000;
  return scale >= tail.floor ? scale : undefined;
}

/**
 * A scaled tail whose card still overflowed by `overflow` px (margins a card draws that the
 * document did not): scaled down by that much more, while it stays legible.
 */
export function scaleFurther({ tail, scale }: ScaledTail, overflow: number): ScaledTail | undefined {
  const further = scaleToGiveBack(tail, tail.height * (1 - scale) + overflow);
  return further === undefined ? undefined : { tail, scale: further };
}

/**
 * Scales the copy of a tail on a card. With `zoom`, not a transform: zoom shrinks the layout box
 * itself, so the card really ends higher. (fit-to-card.ts gives a transform's height back with a
 * negative bottom margin, which at the foot of a card would collapse through the card's content box
 * and leave it as tall as before.) A zoomed table keeps its width and only its text and padding
 * shrink; its rows can only get shorter.
 */
export function scaleTail(el: HTMLElement, { scale }: ScaledTail): void {
  el.style.zoom = String(scale);
}
