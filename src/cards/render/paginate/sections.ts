// Sections: the parts of the document paginated independently. autoSplit has one, the whole
// document; hrSplit starts a new section at every top-level rule, which itself is never drawn, and
// makes no card of an empty section (README.md, "Split modes").
import { indexOf } from './css.js';
import type { Point } from './break-points.js';
import type { Piece } from './pieces.js';

export interface Section {
  /** Its pieces are pieces[from] … pieces[to - 1]. */
  from: number;
  to: number;
  /** DOM positions of its edges. */
  start: Point;
  end: Point;
}

export function sectionsOf(pieces: Piece[], inner: HTMLElement, splitMode: 'autoSplit' | 'hrSplit'): Section[] {
  const whole = { node: inner, offset: inner.childNodes.length };
  if (splitMode === 'autoSplit') return pieces.length > 0 ? [{ from: 0, to: pieces.length, start: { node: inner, offset: 0 }, end: whole }] : [];
  const sections: Section[] = [];
  let from = 0;
  let start: Point = { node: inner, offset: 0 };
  for (let i = 0; i <= pieces.length; i++) {
    const piece = pieces[i];
    if (piece && !piece.rule) continue;
    const end: Point = piece ? { node: inner, offset: indexOf(piece.el) } : whole;
    if (i > from) sections.push({ from, to: i, start, end });
    from = i + 1;
    if (piece) start = { node: inner, offset: indexOf(piece.el) + 1 };
  }
  return sections;
}
