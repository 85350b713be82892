// A cut paragraph reads as one paragraph across the cut: the first line on the next card is not a
// first line (no indent), and a justified paragraph keeps its last line on the card before
// justified, as it was in the whole text. Only the innermost cut elements are touched, so a
// list or quote around the paragraph keeps its own style.

/** The elements of `elements` that have no element matching `selector` inside them. */
export const innermost = (elements: Element[], selector: string): Element[] => elements.filter((el) => !el.querySelector(selector));

export function continueParagraphs(continued: Element[]): void {
  for (const el of innermost(continued, '.split-continued')) (el as HTMLElement).style.textIndent = '0';
}

export function justifyCutLines(continues: Element[]): void {
  for (const el of innermost(continues, '.split-continues')) {
    if (getComputedStyle(el).textAlign === 'justify') (el as HTMLElement).style.textAlignLast = 'justify';
  }
}
