// A cover design that fits its card. The designs size their display type (the title, the keyword
// band) from the length of the text and the card's size (cover-designs.ts), an estimate that long
// keywords or a long title with a subtitle can beat: the cover then ran off the card's foot, and its
// subtitle and last tags were cut. This pass lays the design out once in the real card, in the
// render page, and if it is too tall finds the largest factor of its display type (--cover-fit,
// themes/_cover.css) at which it fits. The subtitle and the tags keep their size, so they stay
// legible. Like fit-tables.ts, it returns HTML with the size written into it.
import { cardMarkup } from '../render/card-markup.js';
import type { RenderPage } from '../render/render-page.js';
import type { Theme } from '../themes/theme-file.js';

export interface FitCoverRequest {
  theme: Theme;
  mode?: string;
  width: number;
  height: number;
  scale: number;
  background?: string;
  /** A design's HTML, whose root is `<div class="cover …">` (cover-designs.ts). */
  html: string;
}

/** Smallest factor of the display type; a cover still too tall at it is clipped like any card. */
export const smallestCoverFit = 0.35;

/** `request.html` unchanged when it fits, else with the largest --cover-fit at which it does. */
export async function fitCover(page: RenderPage, request: FitCoverRequest): Promise<string> {
  const markup = cardMarkup({ ...request, fixedHeight: true, contentHtml: request.html });
  await page.useDeviceMetrics(Math.ceil(request.width), request.scale);
  const input = JSON.stringify({ markup, smallest: smallestCoverFit });
  const fit = await page.evaluate<number | null>(`(() => { const __name = (target) => target; return (${fitCoverInPage.toString()})(${input}); })()`);
  return fit === null ? request.html : withCoverFit(request.html, fit);
}

/**
 * The design with its display type scaled by `fit` (a number, so nothing else enters the
 * attribute), rounded down: a hair larger than the measured fit can wrap a line more.
 */
export function withCoverFit(html: string, fit: number): string {
  if (!html.startsWith('<div class="cover ')) throw new Error('a cover design must start with its root <div class="cover …">');
  return `<div style="--cover-fit:${Math.floor(fit * 1000) / 1000}"${html.slice('<div'.length)}`;
}

/**
 * Runs in the page (self-contained). Returns null when the design fits at its own size, else the
 * largest factor, to 1/128, at which it fits (or the smallest allowed).
 */
export async function fitCoverInPage(input: { markup: string; smallest: number }): Promise<number | null> {
  const root = document.getElementById('cards')!;
  root.innerHTML = input.markup;
  const cover = root.querySelector('.cover') as HTMLElement;
  const parts = Array.from(cover.querySelectorAll(':scope > *, .cover-tag'));
  // Laid out first, so the faces it uses start loading and fonts.ready waits for them.
  void root.offsetHeight;
  await document.fonts.ready;
  // Every part inside the box the cover fills, above and below: a centred design that is too tall
  // runs off both ends, and scrollHeight sees only the foot.
  const fits = (fit: number) => {
    cover.style.setProperty('--cover-fit', String(fit));
    const box = cover.parentElement!.getBoundingClientRect();
    return parts.every((part) => {
      const { top, bottom } = part.getBoundingClientRect();
      return top >= box.top - 1 && bottom <= box.bottom + 1;
    });
  };
  try {
    if (fits(1)) return null;
    if (!fits(input.smallest)) return input.smallest;
    let low = input.smallest;
    let high = 1;
    for (let step = 0; step < 7; step++) {
      const middle = (low + high) / 2;
      if (fits(middle)) low = middle;
      else high = middle;
    }
    return low;
  } finally {
    root.innerHTML = '';
  }
}
