// DOM positions of breaks. A break is chosen between two pieces by geometry; to cut the document
// there, it needs a DOM position (node, offset): between two blocks, before a table row, or at the
// first character of a line inside a paragraph or code block. Positions are found only for the
// breaks actually tried, since finding one inside a run costs a binary search over its characters.
import { indexOf, isInlineAtom, meaningfulText, preformatted, styleOf } from './css.js';
import type { Atom, Run } from './measure-lines.js';
import type { Piece } from './pieces.js';

export interface Point {
  node: Node;
  offset: number;
}

export class BreakPoints {
  private readonly range = document.createRange();
  private readonly points = new Map<number, Point>();

  constructor(
    private readonly inner: HTMLElement,
    private readonly pieces: Piece[],
  ) {}

  /** The position just before piece `i`. */
  before(i: number): Point {
    let point = this.points.get(i);
    if (point) return point;
    const piece = this.pieces[i]!;
    if (piece.kind === 'line' && piece.line! > 0) point = this.linePoint(piece.run!, piece.line!);
    else {
      // The first row of a table: the break falls before the whole table, header row included.
      const target = piece.kind === 'line' ? piece.run!.nodes[0]! : piece.kind === 'row' && piece.row === 0 ? piece.table! : piece.el;
      point = this.lift(target.parentNode!, indexOf(target));
    }
    this.points.set(i, point);
    return point;
  }

  /** Whether anything drawn comes before `offset` inside `node`. */
  private meaningfulBefore(node: Node, offset: number): boolean {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = (node as Text).data.slice(0, offset);
      return preformatted(node) ? text.length > 0 : /\S/.test(text);
    }
    for (let i = 0; i < offset; i++) {
      const child = node.childNodes[i]!;
      if (child.nodeType === Node.ELEMENT_NODE) return true;
      if (child.nodeType === Node.TEXT_NODE && meaningfulText(child as Text)) return true;
    }
    return false;
  }

  /**
   * The shallowest position equal to (node, offset): a break at the start of an element is a
   * break before it, so the card before does not get an empty copy of that element.
   */
  private lift(node: Node, offset: number): Point {
    while (node !== this.inner && !this.meaningfulBefore(node, offset)) {
      offset = indexOf(node);
      node = node.parentNode!;
    }
    return { node, offset };
  }

  /** Every visible character and inline object of a run, in document order. */
  private atomsOf(run: Run): Atom[] {
    if (run.atoms) return run.atoms;
    const atoms: Atom[] = [];
    const walk = (node: Node) => {
      if (node.nodeType === Node.TEXT_NODE) {
        const data = (node as Text).data;
        for (let i = 0; i < data.length; i++) {
          const code = data.charCodeAt(i);
          // A surrogate pair is one character; white space is drawn on neither line.
          if (code >= 0xdc00 && code <= 0xdfff) continue;
          if (/\s/.test(data[i]!)) continue;
          atoms.push({ node, offset: i, length: code >= 0xd800 && code <= 0xdbff ? 2 : 1 });
        }
      } else if (node.nodeType === Node.ELEMENT_NODE) {
        const el = node as Element;
        const display = styleOf(el).display;
        if (display === 'none') return;
        if (isInlineAtom(el, display)) atoms.push({ node: el.parentNode!, offset: indexOf(el), length: 0, element: el });
        else for (const child of Array.from(el.childNodes)) walk(child);
      }
    };
    for (const node of run.nodes) walk(node);
    run.atoms = atoms;
    return atoms;
  }

  /** The vertical centre of where an atom is drawn, or undefined when it is not drawn. */
  private centreOf(atom: Atom): number | undefined {
    let rect: DOMRect;
    if (atom.element) rect = atom.element.getBoundingClientRect();
    else {
      this.range.setStart(atom.node, atom.offset);
      this.range.setEnd(atom.node, atom.offset + atom.length);
      rect = this.range.getBoundingClientRect();
    }
    return rect.height > 0 ? (rect.top + rect.bottom) / 2 : undefined;
  }

  /** Position of the first character (or inline object) of line `line` of a run. */
  private linePoint(run: Run, line: number): Point {
    const atoms = this.atomsOf(run);
    const above = run.lines[line - 1]!;
    const below = run.lines[line]!;
    const split = (above.inkBottom + below.inkTop) / 2;
    // Atoms are in document order and lines follow it, so the first atom below the split is found
    // by bisection. An atom that is not drawn (a zero-width joiner) defers to the next ones.
    const isBelow = (index: number) => {
      for (let k = index; k < atoms.length && k < index + 64; k++) {
        const centre = this.centreOf(atoms[k]!);
        if (centre !== undefined) return centre > split;
      }
      return true;
    };
    let low = 0;
    let high = atoms.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (isBelow(middle)) high = middle;
      else low = middle + 1;
    }
    const atom = atoms[Math.min(low, atoms.length - 1)]!;
    let offset = atom.offset;
    if (!atom.element && preformatted(atom.node)) {
      // In code, a line's indentation belongs to it: break just after the previous newline.
      const data = (atom.node as Text).data;
      let start = offset;
      while (start > 0 && (data[start - 1] === ' ' || data[start - 1] === '\t')) start--;
      if (start === 0 || data[start - 1] === '\n') offset = start;
    }
    return this.lift(atom.node, offset);
  }
}

/** The last character of text before `point` inside `container`, without reading all of it. */
export function characterBefore(point: Point, container: Node): string | undefined {
  let node: Node | null = point.node;
  if (node.nodeType === Node.TEXT_NODE && point.offset > 0) return (node as Text).data[point.offset - 1];
  // The node just before the point, then backwards in document order to the nearest text.
  let previous: Node | null = node.nodeType === Node.TEXT_NODE ? null : node.childNodes[point.offset - 1] ?? null;
  for (;;) {
    if (!previous) {
      while (node && node !== container && !node.previousSibling) node = node.parentNode;
      if (!node || node === container) return undefined;
      previous = node.previousSibling;
    }
    let leaf: Node = previous!;
    while (leaf.lastChild) leaf = leaf.lastChild;
    if (leaf.nodeType === Node.TEXT_NODE && (leaf as Text).data.length > 0) {
      const data = (leaf as Text).data;
      return data[data.length - 1];
    }
    node = leaf;
    previous = null;
  }
}
