// Pieces: the smallest parts of the document that a card break may fall between. A block that
// can be broken (a list, a quote, a div) is opened and its children become pieces; a run of inline
// content becomes one piece per line; a table one piece per body row; a grid (a theme may lay a
// list out as tiles) one piece per row of the grid; anything else (a heading, an image, a formula,
// a rule) is one piece. Each piece carries the elements a break before it cuts.
import { atomicTags, drawsNothing, isHeading, meaningfulText, styleOf } from './css.js';
import { lineBoundary, measureLines, type Run } from './measure-lines.js';

export interface Piece {
  kind: 'block' | 'line' | 'row' | 'gridRow';
  el: Element;
  /** Elements that a break between this piece and a neighbour with the same ancestors splits. */
  path: Element[];
  /** Its extent in page coordinates; a container's padding and border go with its first and last piece. */
  top: number;
  bottom: number;
  heading: boolean;
  /** A top-level <hr>: hrSplit's section break, and never drawn at a card's edge in autoSplit. */
  rule: boolean;
  run?: Run;
  line?: number;
  table?: HTMLTableElement;
  /** The row's index, in a table or a grid (whose row piece's `el` is the row's first item). */
  row?: number;
  rowCount?: number;
}

/** Block containers whose children may be spread over several cards. */
const containerDisplays = new Set(['block', 'list-item', 'flow-root']);

/**
 * Reads the pieces of a laid-out document. Split tables are numbered (`data-split-table`) so that
 * each card can find the whole table again for its header row and column widths.
 */
export class PieceReader {
  private tableCount = 0;
  private readonly range = document.createRange();

  constructor(
    private readonly inner: HTMLElement,
    /** Height available to content on one card: a grid row taller than that is not split off. */
    private readonly available: number,
  ) {}

  read(): Piece[] {
    const out: Piece[] = [];
    this.collect(this.inner, [], out);
    return out;
  }

  private collect(container: Element, path: Element[], out: Piece[]): void {
    let run: Node[] = [];
    const flush = () => {
      const meaningful = run.some((node) => (node.nodeType === Node.TEXT_NODE ? meaningfulText(node as Text) : !drawsNothing(node as Element)));
      if (meaningful) this.linePieces(container, run, path, out);
      run = [];
    };
    for (const child of Array.from(container.childNodes)) {
      if (child.nodeType === Node.TEXT_NODE) {
        run.push(child);
        continue;
      }
      if (child.nodeType !== Node.ELEMENT_NODE) continue;
      const el = child as Element;
      const cs = styleOf(el);
      // Out of the flow: drawn wherever the theme puts them, they take no height of their own.
      if (cs.display === 'none' || cs.position === 'absolute' || cs.position === 'fixed' || cs.float !== 'none') continue;
      // A heading stays a heading (kept with what follows) even when a theme makes it an inline-block.
      const inline = cs.display.startsWith('inline') || cs.display === 'contents' || cs.display.startsWith('ruby');
      if (inline && !isHeading(el)) {
        run.push(el);
        continue;
      }
      flush();
      this.blockPieces(el, cs, path, out);
    }
    flush();
  }

  private linePieces(container: Element, nodes: Node[], path: Element[], out: Piece[]): void {
    const lines = measureLines(nodes, this.range);
    if (lines.length === 0) return;
    const run: Run = { container, nodes, lines };
    lines.forEach((line, j) => {
      out.push({
        kind: 'line',
        el: container,
        path,
        top: j === 0 ? line.boxTop : lineBoundary(lines, j),
        bottom: j === lines.length - 1 ? line.boxBottom : lineBoundary(lines, j + 1),
        heading: false,
        rule: false,
        run,
        line: j,
      });
    });
  }

  /** One piece per body row; a table of fewer than two rows is a single block. */
  private tablePieces(table: HTMLTableElement, path: Element[], out: Piece[]): boolean {
    const rows = Array.from(table.tBodies).flatMap((body) => Array.from(body.rows));
    if (rows.length < 2) return false;
    table.setAttribute('data-split-table', String(this.tableCount++));
    const box = table.getBoundingClientRect();
    const tops = rows.map((row) => row.getBoundingClientRect().top);
    // A stacked record (fit-tables.ts) is a block of lines, its fields: a card may end between them
    // (break-rules.ts holds a record that fits on a card together, as a list item's lines), so a
    // record taller than a card goes on field by field and a heading keeps the first fields of
    // its table at the smallest sizes. Any other row is clipped at the card's edge, as README.md says.
    const stacked = table.classList.contains('table-stacked');
    rows.forEach((row, i) => {
      if (stacked && this.gridPieces(row, [...path, table], out)) return;
      out.push({
        kind: 'row',
        el: row,
        path: [...path, table],
        // The first row starts at the table's top: the header row always travels with it.
        top: i === 0 ? box.top : tops[i]!,
        bottom: i === rows.length - 1 ? box.bottom : tops[i + 1]!,
        heading: false,
        rule: false,
        table,
        row: i,
        rowCount: rows.length,
      });
    });
    return true;
  }

  /**
   * One piece per row of a grid, so that a grid taller than the room left on a card goes on to the
   * next card row by row instead of moving there whole. Only when its items are placed in document
   * order, row after row (a card holds a DOM range), and every row fits on a card.
   */
  private gridPieces(grid: Element, path: Element[], out: Piece[]): boolean {
    const items = Array.from(grid.children).filter((item) => styleOf(item).display !== 'none');
    const rows: { first: Element; top: number; bottom: number }[] = [];
    for (const item of items) {
      const box = item.getBoundingClientRect();
      const row = rows[rows.length - 1];
      if (row && box.top < row.top - 0.5) return false;
      if (row && box.top < row.bottom - 0.5) row.bottom = Math.max(row.bottom, box.bottom);
      else rows.push({ first: item, top: box.top, bottom: box.bottom });
    }
    if (rows.length < 2) return false;
    const box = grid.getBoundingClientRect();
    const tops = rows.map((row, r) => (r === 0 ? box.top : row.top));
    const bottoms = rows.map((_, r) => (r === rows.length - 1 ? box.bottom : tops[r + 1]!));
    if (rows.some((_, r) => bottoms[r]! - tops[r]! > this.available)) return false;
    rows.forEach((row, r) => {
      out.push({ kind: 'gridRow', el: row.first, path: [...path, grid], top: tops[r]!, bottom: bottoms[r]!, heading: false, rule: false, row: r, rowCount: rows.length });
    });
    return true;
  }

  private blockPieces(el: Element, cs: CSSStyleDeclaration, path: Element[], out: Piece[]): void {
    const first = out.length;
    const tag = el.tagName.toUpperCase();
    let split = false;
    if (tag === 'TABLE' || cs.display === 'table') {
      split = el instanceof HTMLTableElement && this.tablePieces(el, path, out);
    } else if (cs.display === 'grid' && !isHeading(el) && !atomicTags.has(tag)) {
      split = this.gridPieces(el, path, out);
    } else if (
      !isHeading(el) &&
      (!atomicTags.has(tag) || el.classList.contains('diagram-sliced') || el.classList.contains('diagram-folded')) &&
      !el.classList.contains('katex-display') &&
      // A closed <details> shows its summary alone: what it hides has boxes the page does not draw,
      // and read as lines it spread an empty "Details" over cards of their own.
      !(el instanceof HTMLDetailsElement && !el.open) &&
      containerDisplays.has(cs.display)
    ) {
      this.collect(el, [...path, el], out);
      split = out.length > first;
    }
    const box = el.getBoundingClientRect();
    if (!split) {
      // An empty <div> or <p> of raw HTML is no piece: a card of only such blocks would be empty.
      if (drawsNothing(el)) return;
      out.push({ kind: 'block', el, path, top: box.top, bottom: box.bottom, heading: isHeading(el), rule: tag === 'HR' && path.length === 0 });
      return;
    }
    // A container's own padding and border travel with its first and last pieces.
    out[first]!.top = Math.min(out[first]!.top, box.top);
    out[out.length - 1]!.bottom = Math.max(out[out.length - 1]!.bottom, box.bottom);
  }
}
