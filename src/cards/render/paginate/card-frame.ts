// The measuring frame: the whole document laid out once in a card of the request's theme that
// grows with its content, at exactly the width of the real cards, so every line wraps where it
// will wrap on a card. Also measured here: how much height one fixed-size card leaves to content.
import { px, styleOf } from './css.js';
import type { PaginationInput } from './types.js';

export interface CardFrame {
  /** #cards, where the finished cards go. */
  root: HTMLElement;
  /** The growing card that holds the whole document while it is measured. */
  measureCard: HTMLElement;
  /** Its `.card-content-inner`: the document itself, the source every card is cut from. */
  inner: HTMLElement;
  /** An empty fixed-size card (its page label set long), cloned for every card. */
  template: HTMLElement;
  /** Height available to content on one card, in px. */
  available: number;
}

/** The top and bottom edges that a card's `.card-content-inner` may reach, in page coordinates. */
export function contentLimit(card: Element): { top: number; bottom: number } {
  const content = card.querySelector('.card-content')!;
  const cs = styleOf(content);
  const box = content.getBoundingClientRect();
  const innerStyle = styleOf(card.querySelector('.card-content-inner')!);
  return {
    top: box.top + px(cs.borderTopWidth) + px(cs.paddingTop),
    bottom: box.bottom - px(cs.borderBottomWidth) - px(cs.paddingBottom) - px(innerStyle.marginBottom),
  };
}

/** Replaces whatever #cards held with the measuring frame, and waits for its fonts and images. */
export async function openCardFrame(input: PaginationInput): Promise<CardFrame> {
  const root = document.getElementById('cards')!;
  root.innerHTML = input.measureTemplate + input.cardTemplate;
  const measureCard = root.children[0] as HTMLElement;
  const probe = root.children[1] as HTMLElement;
  const inner = measureCard.querySelector('.card-content-inner') as HTMLElement;
  inner.innerHTML = input.contentHtml;
  // A long label, so the footer's font and size are those of the real cards.
  probe.querySelector('.page')!.textContent = '88/88';
  // Layout first: it is what makes the page request the fonts this content uses, and only then
  // does `fonts.ready` wait for them.
  void root.offsetHeight;
  await document.fonts.ready;
  await Promise.all(Array.from(inner.querySelectorAll('img'), (img) => img.decode().catch(() => undefined)));

  const limit = contentLimit(probe);
  const probeInner = probe.querySelector('.card-content-inner')!;
  const is = styleOf(probeInner);
  const chrome = px(is.paddingTop) + px(is.paddingBottom) + px(is.borderTopWidth) + px(is.borderBottomWidth);
  const available = Math.max(1, limit.bottom - probeInner.getBoundingClientRect().top - chrome);

  const template = probe.cloneNode(true) as HTMLElement;
  template.querySelector('.card-content-inner')!.replaceChildren();
  probe.remove();
  return { root, measureCard, inner, template, available };
}
