// Break rules: what a break before piece i costs, on top of the room it leaves empty. Candidate i
// is the position just before piece i (1 ≤ i < pieces.length). README.md ("Split modes") states the
// rules users rely on: a heading is never the last thing on a card, and a single line of a
// paragraph (or row of a table) is not left alone at the foot or head of a card unless the
// alternative wastes more than about two and a half lines.
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
 * Keep-with-next for headings: never a heading last on a card (a cost no layout would pay unless it
 * has to), and not a heading with only the first line of its text under it.
 */
export function headingPenalty(pieces: Piece[], i: number, available: number): number {
  const before = pieces[i - 1]!;
  const after = pieces[i]!;
  if (before.heading) return available * 4;
  if (before.kind === 'line' && before.line === 0 && after.run === before.run && pieces[i - 2]?.heading) return available * 2;
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

/** Costs of every break candidate of the document. */
export function breakCosts(pieces: Piece[], available: number): BreakCosts {
  const costs: BreakCosts = { openCost: [], closeCost: [], penalty: [] };
  for (let i = 1; i < pieces.length; i++) {
    const { open, close } = frameCosts(pieces, i);
    costs.openCost[i] = open;
    costs.closeCost[i] = close;
    costs.penalty[i] = Math.max(headingPenalty(pieces, i, available), lonelyLinePenalty(pieces, i));
  }
  return costs;
}
