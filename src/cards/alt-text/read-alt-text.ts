// Alt text for every card: what the card shows, as a screen reader or a social network's alt
// field wants it (Instagram, X, Mastodon and Bluesky each take one per image). Read in the page
// after layout, so a split card's text is exactly that card's share of the document. Reading
// order; a code block is named by its language, a diagram or picture by its own alt text, a
// formula as such; decorations, page labels and signatures are left out (they are not content).
// So are pictures without alt text (a row of badges, an icon), as a screen reader skips an image
// whose alt is empty: "image image image" tells a listener nothing. A card that shows nothing but
// such pictures says how many ("3 images."), so its alt text is never empty.
import type { RenderPage } from '../render/render-page.js';

/** The longest alt text given, in characters (X takes 1,000; Mastodon 1,500; Bluesky 2,000). */
export const maxAltTextLength = 1000;

/** The alt text of every card on the page, in order. */
export function readAltTexts(page: RenderPage): Promise<string[]> {
  return page.run(altTextsInPage, maxAltTextLength);
}

/** In the page: one alt text per child of #cards. */
function altTextsInPage(maxLength: number): string[] {
  /** Elements that start and end a line of the alt text. */
  const blockSelector = 'address, article, aside, blockquote, dd, details, div, dl, dt, figcaption, figure, footer, h1, h2, h3, h4, h5, h6, header, hr, li, main, nav, ol, p, section, summary, ul';
  const words = (text: string) => text.replace(/\s+/g, ' ').trim();
  /** The language of the last code block read that began on its card, cards in order. */
  let lastLanguage = '';
  /** The card's content as text: a clone with code, images and formulas replaced by what they are. */
  const textOf = (card: Element): { text: string; decorativeImages: number } => {
    const content = card.querySelector('.card-content-inner') ?? card.querySelector('.card-content');
    if (!content) return { text: '', decorativeImages: 0 };
    const clone = content.cloneNode(true) as HTMLElement;
    // The source's own line breaks (a hard-wrapped paragraph, an image's alt written over two
    // lines) are spaces on the card; lines are made below, where the card starts one.
    const walker = document.createTreeWalker(clone, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) node.textContent = (node.textContent ?? '').replace(/\s+/g, ' ');
    for (const code of clone.querySelectorAll('pre')) {
      // A block cut by a split goes on without its header: it is the block labelled last, on the card before.
      const continued = code.classList.contains('split-continued');
      const label = words(code.querySelector('.code-lang')?.textContent ?? '');
      const language = label || (continued ? lastLanguage : '');
      if (!continued) lastLanguage = label;
      code.replaceWith(`\n${language ? `Code (${language})` : 'Code'}${continued ? ', continued' : ''}.\n`);
    }
    // KaTeX draws HTML only (markdown/math.ts), without its TeX source.
    for (const formula of clone.querySelectorAll('.katex-display, .katex')) formula.replaceWith(' (formula) ');
    // Pictures without alt: placeholders of ones not fetched (markdown/placeholder-images.ts), and pictures whose alt is blank.
    let decorativeImages = clone.querySelectorAll('.image-placeholder[aria-hidden="true"]').length;
    for (const image of clone.querySelectorAll('img')) {
      const alt = words(image.getAttribute('alt') ?? '');
      if (!alt) decorativeImages++;
      image.replaceWith(alt ? ` ${alt} ` : ' ');
    }
    for (const hidden of clone.querySelectorAll('[aria-hidden="true"], .code-dots, style, script')) hidden.remove();
    for (const lineBreak of clone.querySelectorAll('br')) lineBreak.replaceWith('\n');
    // A task list's boxes say whether the task is done; the cover's tag chips stand apart on the card.
    for (const box of clone.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')) box.replaceWith(box.checked ? '☑ ' : '☐ ');
    for (const chip of clone.querySelectorAll('.cover-tags > *')) chip.after(' ');
    // A table row is one line, its cells joined.
    for (const row of clone.querySelectorAll('tr')) row.replaceWith(`\n${Array.from(row.cells, (cell) => words(cell.textContent ?? '')).join(' · ')}\n`);
    // A block starts and ends a line, as innerText would have it (a list item's text and the
    // list nested in it are two); the clone is not laid out, so block edges are marked by hand.
    for (const block of clone.querySelectorAll(blockSelector)) {
      block.prepend('\n');
      block.append('\n');
    }
    return { text: clone.textContent ?? '', decorativeImages };
  };
  const trim = (text: string): string => {
    if (text.length <= maxLength) return text;
    const cut = text.slice(0, maxLength - 1);
    // A code block's name is not cut in two ("Code…" would name nothing): the text ends before it.
    const lineStart = cut.lastIndexOf('\n') + 1;
    if (/^Code(?: \(.+\))?(?:, continued)?\.$/.test(text.slice(lineStart).split('\n')[0]!)) return `${cut.slice(0, lineStart)}…`;
    // At the last space or line end, unless that loses much (a run of Chinese has no spaces).
    const lastSpace = Math.max(cut.lastIndexOf(' '), cut.lastIndexOf('\n'));
    return `${(lastSpace > maxLength * 0.6 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
  };
  return Array.from(document.getElementById('cards')!.children, (card) => {
    const { text, decorativeImages } = textOf(card);
    const lines = text.split('\n').map(words).filter(Boolean);
    if (lines.length === 0 && decorativeImages > 0) return decorativeImages === 1 ? 'Image.' : `${decorativeImages} images.`;
    return trim(lines.join('\n'));
  });
}
