// Content that cannot be broken and is taller than a card is scaled down to fit one card
// (README.md, "Split modes"): a picture keeps its proportions; any other unbreakable block (a
// formula, a figure, columns) is shrunk as drawn. A single table row or line is never scaled.
import { px, styleOf } from './css.js';
import type { Piece } from './pieces.js';

/** Padding and borders of `el` and its ancestors up to `upTo`: room the content inside cannot use. */
function verticalChrome(el: Element, upTo: Element): number {
  let sum = 0;
  for (let node: Element | null = el; node && node !== upTo; node = node.parentElement) {
    const cs = styleOf(node);
    sum += px(cs.paddingTop) + px(cs.paddingBottom) + px(cs.borderTopWidth) + px(cs.borderBottomWidth);
  }
  return sum;
}

/**
 * Gives every image taller than the room a card leaves it a max-height, so the browser scales it
 * with its proportions. Returns whether any was changed (the document must then be laid out again).
 */
export function fitImages(inner: HTMLElement, available: number): boolean {
  let changed = false;
  for (const img of Array.from(inner.querySelectorAll('img'))) {
    // A slice or a row of a diagram shows a part of the whole picture (slice-diagrams.ts,
    // markdown/mermaid-diagrams.ts): its height is the window's.
    if (img.closest('.diagram-slice, .diagram-row')) continue;
    const height = img.getBoundingClientRect().height;
    const room = Math.floor(available - verticalChrome(img.parentElement!, inner) - 1);
    if (height > room && room > 0) {
      img.style.width = 'auto';
      img.style.height = 'auto';
      img.style.maxWidth = '100%';
      img.style.maxHeight = `${room}px`;
      changed = true;
    }
  }
  if (changed) void inner.offsetHeight;
  return changed;
}

/**
 * Scales every unbreakable block piece taller than a card down to fit one. A transform keeps its
 * line breaks (zoom would reflow its text into a wider measure), and a negative bottom margin gives
 * back the height it no longer uses; the block is never split, so that margin stays exact.
 * Returns whether any was scaled (the pieces must then be measured again).
 */
export function fitBlocks(pieces: Piece[], inner: HTMLElement, available: number): boolean {
  const factors = new Map<HTMLElement, number>();
  for (const piece of pieces) {
    if (piece.kind !== 'block' || piece.rule) continue;
    const target = piece.el as HTMLElement;
    const height = piece.bottom - piece.top;
    const room = available - verticalChrome(target.parentElement!, inner) - 1;
    if (height > room && room > 0) factors.set(target, Math.min(factors.get(target) ?? 1, room / height));
  }
  for (const [target, factor] of factors) {
    const scale = Math.floor(factor * 1000) / 1000;
    const height = target.offsetHeight;
    target.style.transformOrigin = 'top center';
    target.style.transform = `scale(${scale})`;
    target.style.marginBottom = `${px(styleOf(target).marginBottom) - height * (1 - scale)}px`;
  }
  return factors.size > 0;
}
