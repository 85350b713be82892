// Break rules: what a break before piece i costs, on top of the room it leaves empty. Candidate i
// is the position just before piece i (1 ≤ i < pieces.length). README.md ("Split modes") states the
// rules users rely on: a heading is never the last thing on a card, nor is the label or frame of a
// block without a line of its content; a single line of a paragraph (or row of a table) is not left
// alone at the foot or head of a card unless the alternative wastes more than about two and a half
// lines; an image stays with the paragraph that introduces it when the two fit on one card; the
// closing hashtag line never has a card to itself.
import { px, styleOf } from './css.js';
import type { Piece } from './pieces.js';

export interface BreakCosts {
  /**
   * Height a break before piece i adds at the head of the next card: the top padding and border of
   * every container it cuts (drawn again there), and a table's repeated header row.
   */
  openCost: number[];
  /** Height it adds at the foot of the card it ends: the bottom padding and border of those containers. */
  closeCost: number[];
  /** How undesirable the break is, in px of wasted room it is worth. */
  penalty: number[];
  /** The break would leave a heading or label last on a card (or a heading over a single line). */
  keep: boolean[];
}

/** The elements that both sides of candidate i are inside of: those a break there cuts. */
function cutElements(pieces: Piece[], i: number): Element[] {
  const a = pieces[i - 1]!.path;
  const b = pieces[i]!.path;
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return a.slice(0, n);
}

/** The frame a break before piece i must draw again: padding and borders of what it cuts. */
function frameCosts(pieces: Piece[], i: number): { open: number; close: number } {
  let open = 0;
  let close = 0;
  for (const el of cutElements(pieces, i)) {
    const cs = styleOf(el);
    open += px(cs.paddingTop) + px(cs.borderTopWidth);
    close += px(cs.paddingBottom) + px(cs.borderBottomWidth);
    if (el instanceof HTMLTableElement && el.tHead) open += el.tHead.getBoundingClientRect().height;
  }
  return { open, close };
}

/**
 * Labels the Markdown renderer draws at the top of a block, above its content: a code block's
 * window dots and language (code-blocks.ts in src/cards/markdown), a callout's title
 * (mdx-components.ts). Like a heading, a label is never left at the foot of a card without a line
 * of what it labels: that would leave an empty frame with only its decoration.
 */
const labelSelector = '.code-header, .callout-title';

export const isLabel = (piece: Piece): boolean => piece.el.closest(labelSelector) !== null;

/** Pieces that must not be the last thing on a card: headings and labels. */
export const keepsWithNext = (piece: Piece): boolean => piece.heading || isLabel(piece);

/**
 * Keep-with-next for headings and labels: never one last on a card (a cost no layout would pay
 * unless it has to), and not a heading with only the first line of its text under it (looking
 * past the label of a code block between them).
 */
export function keepWithNextPenalty(pieces: Piece[], i: number, available: number): number {
  const before = pieces[i - 1]!;
  const after = pieces[i]!;
  if (keepsWithNext(before)) return available * 4;
  if (before.kind === 'line' && before.line === 0 && after.run === before.run) {
    let above = i - 2;
    while (above >= 0 && isLabel(pieces[above]!)) above--;
    if (pieces[above]?.heading) return available * 2;
  }
  return 0;
}

/**
 * Widows and orphans: a break that leaves a single line of a paragraph (or a single row of a table)
 * alone at the foot or head of a card costs two and a half of that line's height.
 */
export function lonelyLinePenalty(pieces: Piece[], i: number): number {
  const before = pieces[i - 1]!;
  const after = pieces[i]!;
  const height = before.bottom - before.top;
  const lonely = (count: number, index: number) => count >= 2 && (index === 1 || count - index === 1);
  if (before.kind === 'line' && after.kind === 'line' && before.run === after.run && lonely(after.run!.lines.length, after.line!)) {
    return 2.5 * height;
  }
  if (before.kind === 'row' && after.kind === 'row' && before.table === after.table && lonely(after.rowCount!, after.row!)) {
    return 2.5 * height;
  }
  return 0;
}

/** The nodes of a line piece's run that draw something: its elements and its text that is not white space. */
const drawnNodes = (piece: Piece): Node[] => piece.run!.nodes.filter((node) => node.nodeType === Node.ELEMENT_NODE || /\S/.test(node.textContent ?? ''));

/** An image on its own: a picture block, or a paragraph holding nothing but one picture. */
function isImage(piece: Piece): boolean {
  if (piece.kind === 'block') return piece.el.tagName === 'IMG' || piece.el.tagName === 'FIGURE';
  if (piece.kind !== 'line' || piece.run!.lines.length !== 1) return false;
  const drawn = drawnNodes(piece);
  return drawn.length === 1 && (drawn[0] as Element).tagName === 'IMG';
}

/**
 * An image stays with the paragraph that introduces it (the paragraph just before it) when the two
 * fit on one card together: any break inside that paragraph or between it and the image costs a
 * card's height, so the pair moves on together. Not a keep-with-next rule: when keeping them
 * together would leave a card more than a third empty, the fill rule (choose-break.ts) separates
 * them.
 */
export function introducedImagePenalties(pieces: Piece[], available: number, penalty: number[]): void {
  for (let i = 1; i < pieces.length; i++) {
    const image = pieces[i]!;
    const intro = pieces[i - 1]!;
    if (!isImage(image) || intro.kind !== 'line' || intro.run === image.run || intro.run!.container.tagName !== 'P') continue;
    const first = i - 1 - intro.line!;
    if (image.bottom - pieces[first]!.top > available) continue;
    for (let c = first + 1; c <= i; c++) penalty[c] = Math.max(penalty[c]!, available);
  }
}

/** A paragraph of hashtags alone (markdown/hashtags.ts draws each as a span.hashtag): the closing tag line. */
function isHashtagLine(piece: Piece): boolean {
  if (piece.kind !== 'line' || piece.run!.container.tagName !== 'P') return false;
  const drawn = drawnNodes(piece);
  return drawn.length > 0 && drawn.every((node) => node.nodeType === Node.ELEMENT_NODE && (node as Element).classList.contains('hashtag'));
}

/**
 * The document's closing hashtag line is not a card of its own: a break just before it costs a
 * card's height, so the lines before it come along when it does not fit. Paid only when nothing
 * can come along (an image or a table row as tall as the card before it) or the card it would
 * leave would be too empty (the fill rule, choose-break.ts).
 */
export function closingHashtagsPenalty(pieces: Piece[], i: number, available: number): number {
  const after = pieces[i]!;
  if (after.line !== 0 || !isHashtagLine(after)) return 0;
  const last = pieces.at(-1)!;
  return last.run === after.run ? available : 0;
}

/** Costs of every break candidate of the document. */
export function breakCosts(pieces: Piece[], available: number): BreakCosts {
  const costs: BreakCosts = { openCost: [], closeCost: [], penalty: [], keep: [] };
  for (let i = 1; i < pieces.length; i++) {
    const { open, close } = frameCosts(pieces, i);
    costs.openCost[i] = open;
    costs.closeCost[i] = close;
    const keep = keepWithNextPenalty(pieces, i, available);
    costs.keep[i] = keep > 0;
    costs.penalty[i] = Math.max(keep, lonelyLinePenalty(pieces, i), closingHashtagsPenalty(pieces, i, available));
  }
  introducedImagePenalties(pieces, available, costs.penalty);
  return costs;
}
