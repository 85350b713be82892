// overHiddenMode: a card whose content does not fit ends at its last whole line, and shows that the
// text goes on. Runs in the render page after the cards are laid out and before they are captured.
//
// For every fixed-height card whose content reaches past its content box, the cut is moved up from
// the content box's bottom until no line of text, image or other atomic box crosses it. The card
// then gets the class .content-truncated and, on .card-content-inner, --truncate-at (the cut, in px
// from the top of .card-content-inner). themes/_base.css hides everything below the cut and fades
// the lines above it out over --truncation-fade; a theme may restyle both, or add a mark of its own
// with `.card.content-truncated .card-content::after` (themes/README.md).
import type { RenderPage } from './render-page.js';

/** Marks the truncated cards on the page; returns how many there were. */
export async function truncateOverflow(page: RenderPage): Promise<number> {
  return page.run(truncateOverflowInPage);
}

/** Runs in the page (self-contained, like paginate-in-page.ts). */
export function truncateOverflowInPage(): number {
  const px = (value: string) => parseFloat(value) || 0;
  // How far a box may reach past the cut unseen: half a pixel of text (a glyph cut any further
  // shows), two of a picture, which zoomed to the room left on its card (paginate/fit-to-room.ts)
  // rounds to a pixel past it and was hidden whole for that pixel.
  const textSlack = 0.5;
  const pictureSlack = 2;
  const range = document.createRange();
  // A picture its theme turns (notebook tilts pictures by 1°) reaches a few px past its own box at
  // a corner; the pagination placed and sized the box, so the box is what must fit. Measured
  // turned, a diagram fitted to the room left crossed the cut and was hidden whole.
  const untransformedRect = (element: Element): DOMRect => {
    if (getComputedStyle(element).transform === 'none') return element.getBoundingClientRect();
    const { style } = element as HTMLElement;
    const inline = style.transform;
    style.transform = 'none';
    const rect = element.getBoundingClientRect();
    style.transform = inline;
    return rect;
  };
  // What a closed <details> hides is not drawn, but asked for its boxes the page lays it out as if
  // it were: its lines would cross the cut and end the card above its own last line. (No filter
  // function for the walker: the page runs no script of its own, so it could not call one.)
  const hiddenByDetails = (node: Node): boolean => {
    const parent = node.parentElement;
    if (node.nodeType === Node.TEXT_NODE && parent?.matches('details:not([open])')) return true;
    return (node.nodeType === Node.TEXT_NODE ? parent : (node as Element))?.closest('details:not([open]) > :not(summary)') != null;
  };
  let truncated = 0;
  for (const card of Array.from(document.querySelectorAll('#cards > .card.fixed-height')) as HTMLElement[]) {
    const content = card.querySelector('.card-content');
    const inner = card.querySelector('.card-content-inner') as HTMLElement | null;
    if (!content || !inner) continue;
    const cs = getComputedStyle(content);
    const limit = content.getBoundingClientRect().bottom - px(cs.paddingBottom) - px(cs.borderBottomWidth);
    const innerTop = inner.getBoundingClientRect().top;
    const boxes: Array<{ top: number; bottom: number; slack: number }> = [];
    const foldsSomething = inner.querySelector('details:not([open])') !== null;
    const walker = document.createTreeWalker(inner, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (foldsSomething && hiddenByDetails(node)) continue;
      if (node.nodeType === Node.TEXT_NODE) {
        if (!/\S/.test((node as Text).data)) continue;
        range.selectNodeContents(node);
        for (const r of Array.from(range.getClientRects())) if (r.width > 0 && r.height > 0) boxes.push({ top: r.top, bottom: r.bottom, slack: textSlack });
      } else if (/^(IMG|SVG|VIDEO|CANVAS|INPUT|HR)$/i.test((node as Element).tagName) || (node as Element).classList.contains('katex-display')) {
        // Only what is drawn of it: an ancestor that clips its overflow (a slice of a diagram cut
        // over several cards shows a band of the whole picture) cuts its box.
        let { top, bottom } = untransformedRect(node as Element);
        for (let above = (node as Element).parentElement; above && above !== inner; above = above.parentElement) {
          if (getComputedStyle(above).overflowY === 'visible') continue;
          const clip = above.getBoundingClientRect();
          top = Math.max(top, clip.top);
          bottom = Math.min(bottom, clip.bottom);
        }
        if (bottom > top) boxes.push({ top, bottom, slack: pictureSlack });
      }
    }
    if (!boxes.some((box) => box.bottom > limit + box.slack)) continue;
    // Move the cut above every box that crosses it, until none does.
    let cut = limit;
    for (;;) {
      const crossing = boxes.filter((box) => box.top < cut - 0.5 && box.bottom > cut + box.slack);
      if (crossing.length === 0) break;
      cut = Math.min(...crossing.map((box) => box.top));
    }
    // Nothing whole fits (one line or picture taller than the card): clip at the edge as before.
    if (cut <= innerTop + 1) cut = limit;
    card.classList.add('content-truncated');
    inner.style.setProperty('--truncate-at', `${(cut - innerTop).toFixed(2)}px`);
    truncated++;
  }
  return truncated;
}
