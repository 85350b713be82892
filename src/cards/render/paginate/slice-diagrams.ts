// A diagram too tall for a card, drawn to be cut rather than shrunk (diagram-page.ts gives it
// data-cuts: where no text or shape is crossed), goes on over several cards at the size it was
// drawn. Its figure becomes a stack of slices, each a window of the same picture as tall as the
// band between two cuts; the slices are pieces like the rows of a table, so the card breaks fall
// between them and a card's slices join into one picture again.
import { diagramLimits } from '../../diagrams/diagram-limits.js';
import { isHeading, px, styleOf } from './css.js';
import { introducesNext } from './piece-kinds.js';

/** A band thinner than this is joined to the one below it: no card ends on a sliver of a diagram. */
const thinnestSlice = 24;

/**
 * Slices every diagram with data-cuts that is taller than the room a card leaves it under what must
 * stay with it (its heading, a line introducing it) when shrunk to that room its text would fall
 * under the floor (data-text-px, its smallest text as drawn). One that stays legible shrunk is left
 * whole, to be scaled to the card or to the room left (fit-to-card.ts, fit-to-room.ts).
 */
export function sliceTallDiagrams(inner: HTMLElement, available: number): void {
  let sliced = false;
  for (const figure of Array.from(inner.querySelectorAll<HTMLElement>('figure.diagram[data-cuts]'))) {
    const img = figure.querySelector('img');
    if (!img) continue;
    const { width, height } = img.getBoundingClientRect();
    if (height <= 0) continue;
    const figureStyle = styleOf(figure);
    const room = available - px(figureStyle.paddingTop) - px(figureStyle.paddingBottom) - keptAbove(figure);
    if (height <= room) continue;
    const textPx = Number(figure.dataset.textPx);
    if (textPx > 0 && (textPx * room) / height >= diagramLimits.minTextPx) continue;
    const edges = bands(figure.dataset.cuts!, height);
    const slices = edges.slice(1).map((bottom, k) => {
      const top = edges[k]!;
      const slice = document.createElement('div');
      slice.className = 'diagram-slice';
      // A window: a flex box is one piece of the pagination, not a container opened into lines.
      Object.assign(slice.style, { display: 'flex', justifyContent: 'center', overflow: 'hidden', height: `${bottom - top}px`, margin: '0' });
      const copy = img.cloneNode(false) as HTMLImageElement;
      // The whole picture at its drawn size, moved up so that the band shows through the slice.
      Object.assign(copy.style, { flex: 'none', width: `${width}px`, height: `${height}px`, maxWidth: 'none', maxHeight: 'none', marginTop: `${-top}px` });
      slice.appendChild(copy);
      return slice;
    });
    figure.classList.add('diagram-sliced');
    figure.replaceChildren(...slices);
    sliced = true;
  }
  // Laid out again at once, so the pieces read next see the slices.
  if (sliced) void inner.offsetHeight;
}

/**
 * The height of what a card must hold above `figure` with it: a heading right before it, or a
 * paragraph introducing it (ending in a colon) and a heading before that (break-rules.ts's
 * keep-with-next), from the top of the first to the top of the figure.
 */
function keptAbove(figure: HTMLElement): number {
  let first: Element | undefined;
  for (let el = figure.previousElementSibling, count = 0; el && count < 2; el = el.previousElementSibling, count++) {
    const introduces = el.tagName === 'P' && introducesNext(el.textContent ?? '');
    if (!isHeading(el) && !(introduces && count === 0)) break;
    first = el;
    if (isHeading(el)) break;
  }
  return first ? figure.getBoundingClientRect().top - first.getBoundingClientRect().top : 0;
}

/** The edges of the bands between the cuts, top to bottom, in px of a picture `height` tall. */
function bands(cuts: string, height: number): number[] {
  const edges = [0];
  const positions = cuts
    .split(' ')
    // Whole px, so the slices of one card join without a seam.
    .map((cut) => Math.round(Number(cut) * height))
    .filter((y) => y > 0 && y < height)
    .sort((a, b) => a - b);
  for (const y of positions) if (y - edges[edges.length - 1]! >= thinnestSlice && height - y >= thinnestSlice) edges.push(y);
  edges.push(Math.round(height));
  return edges;
}
