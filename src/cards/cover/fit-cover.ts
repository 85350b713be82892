// A cover that fits its card. The cover designs size their display type (the title, the keyword
// band) from the length of the text and the card's size (cover-designs.ts), and so does the front
// matter's cover card (render/creator-cards.ts): an estimate that long keywords, a long title with
// a subtitle or ten tags can beat. The cover then ran off the card, and its subtitle and last tags
// were cut. This pass lays the cover out once in the real card, in the render page, and if it is
// too tall finds the largest factor (--cover-fit) at which it fits: a design scales its display
// type by it (themes/_cover.css), keeping its subtitle and tags legible; the front matter's cover
// scales all of its parts (themes/_base.css), since its tags are what overflows. Like
// fit-tables.ts, it returns HTML with the factor written into it.
import { cardGeometry, cardMarkup, type CardMarkupOptions } from '../render/card-markup.js';
import type { CardRenderRequest } from '../render/render-cards.js';
import type { RenderPage } from '../render/render-page.js';

/** The card the cover is drawn in, as the render request gives it, and the cover. */
export interface FitCoverRequest
  extends Pick<CardRenderRequest, 'theme' | 'mode' | 'width' | 'height' | 'scale' | 'background' | 'fontScale' | 'fontFamily' | 'watermark'>,
    Pick<CardMarkupOptions, 'kind'> {
  /** The cover's HTML, whose root is `<div class="cover …">` (cover-designs.ts, creator-cards.ts). */
  html: string;
  /** Smallest factor; a cover still too tall at it is clipped like any card. */
  smallest: number;
}

/** Smallest factor of a design's display type: its title stays at least 16 px (themes/_cover.css). */
export const smallestDesignFit = 0.35;
/** Smallest factor of all of the front matter's cover: its tags and byline stay legible. */
export const smallestCreatorCoverFit = 0.6;

/** `request.html` unchanged when it fits, else with the largest --cover-fit at which it does. */
export async function fitCover(page: RenderPage, request: FitCoverRequest): Promise<string> {
  const markup = cardMarkup({ ...request, fixedHeight: true, contentHtml: request.html });
  const geometry = cardGeometry(request.width, request.height, request.scale, request.fontScale);
  await page.useDeviceMetrics(Math.ceil(geometry.width), geometry.deviceScale);
  const fit = await page.run(fitCoverInPage, { markup, smallest: request.smallest });
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
