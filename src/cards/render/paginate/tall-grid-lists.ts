// A theme may lay a list out as a grid of tiles (glassmorphism's two columns). Pagination breaks a
// grid between its rows (pieces.ts), but a row taller than a card cannot be broken: the whole grid
// was then one block, scaled down to fit a card, and its text drawn a few px tall (a README's list
// of options in tiles 60 px wide at 200×200). Such a list is laid out as one column instead, its
// tiles one under another with the grid's gap between them, and breaks between lines like any list.
import { px, styleOf } from './css.js';

/** Lays out every list shown as a grid in one column when one of its items is taller than a card. */
export function stackTallGridLists(inner: HTMLElement, available: number): void {
  let stacked = false;
  for (const list of Array.from(inner.querySelectorAll<HTMLElement>('ul, ol'))) {
    const listStyle = styleOf(list);
    if (listStyle.display !== 'grid') continue;
    const items = Array.from(list.children) as HTMLElement[];
    if (!items.some((item) => item.getBoundingClientRect().height > available)) continue;
    // Read before the list changes: each read after a change would lay the page out again.
    const gap = px(listStyle.rowGap);
    const spaced = items.map((item) => px(styleOf(item).marginBottom) === 0);
    list.style.display = 'block';
    items.forEach((item, index) => {
      if (spaced[index] && index < items.length - 1) item.style.marginBottom = `${gap}px`;
    });
    stacked = true;
  }
  // Laid out again at once, so the pieces read next see the column.
  if (stacked) void inner.offsetHeight;
}
