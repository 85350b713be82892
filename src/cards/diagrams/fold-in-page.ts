// Folding a diagram too wide for the card into rows (diagram-page.ts draws it, and calls this
// when its text, shrunk to the card's width, stays under the floor: a user journey's tasks side by
// side, a pie beside a long legend). foldInPage runs in the diagram page, on the drawing Mermaid
// left there; the card shows one window per row on the same picture (markdown/mermaid-diagrams.ts).
import { diagramLimits } from './diagram-limits.js';

/** Where the folded drawing is in the page, its smallest text there (CSS px), and its rows. */
export interface FoldedDrawing {
  x: number;
  y: number;
  width: number;
  height: number;
  smallestTextPx: number;
  rows: FoldedRow[];
}

/** What foldInPage is given for a card of `contentWidth` (and `contentHeight` when fixed) and a drawing whose smallest text is `atWidthPx`. */
export function foldArguments(contentWidth: number, contentHeight: number | undefined, sliceable: boolean | undefined, atWidthPx: number): FoldArguments {
  return { width: contentWidth, atWidthPx, minTextPx: diagramLimits.minTextPx, mostRows: mostFoldedRows, ...foldLimits(contentHeight, sliceable) };
}

/** How tall a folded drawing's rows may be: each within a card, and all of them when the card cannot go on to another. */
function foldLimits(contentHeight: number | undefined, sliceable: boolean | undefined): { rowHeightLimit: number; heightLimit: number } {
  if (contentHeight === undefined) return { rowHeightLimit: Infinity, heightLimit: Infinity };
  // A row shorter than a card by a seventh leaves room above it for its heading (kept with it).
  return { rowHeightLimit: contentHeight * 0.85, heightLimit: sliceable ? Infinity : contentHeight };
}

export interface FoldArguments {
  /** The card's content width. */
  width: number;
  /** The drawing's smallest text as it is drawn now, at most the card's content width. */
  atWidthPx: number;
  minTextPx: number;
  rowHeightLimit: number;
  heightLimit: number;
  mostRows: number;
}

/** The most rows a drawing is folded into: each row repeats the picture in the card's markup. */
const mostFoldedRows = 4;

/** One row of a folded drawing: the part of the picture it shows, as fractions of its width and height. */
export interface FoldedRow {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/**
 * In the page: the drawing, too wide to be legible at the card's width, folded into rows like a
 * line of text: it is split down the vertical bands that no text or shape crosses (between a
 * journey's tasks, between a pie and its legend), its parts are filled into rows at most as wide
 * as the card's content can show at the floor, each row keeps only the height its own part draws
 * on, and it is drawn larger, its text a tenth over the floor (never past its own size, the
 * card's width, nor the limits' heights). Undefined when no folding reaches the floor within them.
 */
export function foldInPage({ width, atWidthPx, minTextPx, rowHeightLimit, heightLimit, mostRows }: FoldArguments): FoldedDrawing | undefined {
  const drawing = document.querySelector<SVGSVGElement>('#diagram svg')!;
  const box = drawing.getBoundingClientRect();
  const natural = Number(drawing.dataset.natural);
  if (!(natural > box.width) || !(atWidthPx > 0)) return undefined;
  // The most the drawing can grow: to its own size, or until its text stands at the floor.
  const mostGrowth = natural / box.width;
  const floorGrowth = minTextPx / atWidthPx;
  if (floorGrowth > mostGrowth) return undefined;
  // Px of the drawing as it is now that one row may hold.
  const rowCapacity = width / floorGrowth;
  // Everything drawn, and what a split may not go through: any text, any shape narrower than a
  // row (a wider one, a journey's section over many tasks, is split with the drawing), and any edge
  // between two nodes (a class diagram's inheritance arrow, a flowchart's link): cut, its ends
  // pointed at nothing on two rows. Other lines that run across (a journey's time axis) may be
  // split; lines that run down hold a split off.
  const parts: { left: number; right: number; top: number; bottom: number; holds: boolean }[] = [];
  for (const el of Array.from(drawing.querySelectorAll('text, rect, circle, ellipse, polygon, polyline, path, line, use'))) {
    if (el.closest('defs, marker')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const edge = el.closest('.edgePaths, .edgePath, .relation, .transition, .relationshipLine') !== null;
    const across = /^(?:line|polyline|path)$/.test(el.tagName) && r.width > 2 * r.height;
    const holds = el.tagName === 'text' || edge || (r.width <= rowCapacity && !across);
    parts.push({ left: r.left - box.left, right: r.right - box.left, top: r.top - box.top, bottom: r.bottom - box.top, holds });
  }
  const spans = parts.filter((part) => part.holds).sort((a, b) => a.left - b.left);
  // A split needs a gap of 6 px of the drawing at its own size: a pie's legend keeps its colours
  // 4 px from their names, which must stay together; a journey's sections are 10 px apart.
  const narrowestGap = (6 * box.width) / natural;
  const splits: number[] = [];
  let reach = spans[0]?.right ?? 0;
  for (const { left, right } of spans.slice(1)) {
    if (left - reach >= narrowestGap) splits.push((reach + left) / 2);
    reach = Math.max(reach, right);
  }
  // Parts filled into rows, left to right, each row as wide as it may be.
  const edges = [0];
  let previous = 0;
  for (const split of [...splits, box.width]) {
    const rowStart = edges[edges.length - 1]!;
    if (split - rowStart > rowCapacity) {
      if (previous === rowStart || split - previous > rowCapacity) return undefined;
      edges.push(previous);
    }
    previous = split;
  }
  edges.push(box.width);
  if (edges.length < 3 || edges.length - 1 > mostRows) return undefined;
  // Each row from the top of what is drawn in it to its bottom, with a margin.
  const margin = 4;
  const rows = edges.slice(1).map((right, k) => {
    const left = edges[k]!;
    const inRow = parts.filter((part) => part.right > left && part.left < right);
    const top = Math.max(0, Math.min(...inRow.map((part) => part.top)) - margin);
    const bottom = Math.min(box.height, Math.max(...inRow.map((part) => part.bottom)) + margin);
    return { left, right, top: Number.isFinite(top) ? top : 0, bottom: Number.isFinite(bottom) ? bottom : box.height };
  });
  const widest = Math.max(...rows.map((row) => row.right - row.left));
  const tallest = Math.max(...rows.map((row) => row.bottom - row.top));
  const total = rows.reduce((sum, row) => sum + row.bottom - row.top, 0);
  // No larger than a tenth over the floor: rows that fill the card's width would be as tall as a
  // card (a pie), leaving no room for the heading above them or the next row.
  const growth = Math.min(mostGrowth, 1.1 * floorGrowth, width / widest, rowHeightLimit / tallest, heightLimit / total);
  if (growth < floorGrowth) return undefined;
  drawing.setAttribute('width', String(box.width * growth));
  drawing.setAttribute('height', String(box.height * growth));
  const grown = drawing.getBoundingClientRect();
  return {
    x: grown.left + window.scrollX,
    y: grown.top + window.scrollY,
    width: grown.width,
    height: grown.height,
    smallestTextPx: Math.floor(atWidthPx * growth * 10) / 10,
    rows: rows.map((row) => ({ left: row.left / box.width, right: row.right / box.width, top: row.top / box.height, bottom: row.bottom / box.height })),
  };
}
