// A PDF's text layer reads in the order Chromium paints the text, not in the DOM's order. CSS paints
// a stacking context's ordinary blocks first and its positioned boxes (and boxes that make stacking
// contexts of their own) after them, in a layer of their own. Themes position a heading, a list item,
// a quote or a code panel (`position: relative`) only to anchor a decoration to it, and the card's
// content area is a stacking context (the watermark's): so japanese-magazine's title came out of the
// PDF after the text below it, a list's items before the paragraphs above them, a footer before the
// content. Select-all, copy and a screen reader's text read them out of order.
//
// Before printing (render-page.ts, printCards), every block-level box of a card whose parent is one
// too becomes a stacking context (`isolation: isolate`). Stacking contexts at z-index auto are
// painted in the DOM's order, so the blocks' text is too. Isolation moves nothing and changes no
// containing block; what it changes is only which layer a block's descendants at a negative
// z-index are painted in (over the block's own background instead of under it), which no theme's
// text block depends on. An atomic inline (inline-block) alone on its line between blocks is ordered
// like a block. Tables are isolated whole, not cell by cell: a cell painted in a layer of
// its own would paint its background over the table's collapsed borders. Other inline boxes are left as
// they are: isolating one would take it out of its line's order instead.
//
// Runs in the page as `RenderPage.run` runs functions: no named inner functions, no imports.

/** The rule of the class the page script gives; it adds it to the page as style#pdf-reading-order. */
export const pdfReadingOrderCss = '.pdf-in-order { isolation: isolate; }';

/** In the page: makes every card in #cards paint its blocks, and so its PDF's text, in document order. */
export function paintInDocumentOrder(css: string): void {
  const style = document.createElement('style');
  style.id = 'pdf-reading-order';
  style.textContent = css;
  document.head.append(style);
  const blockLevel = new Set(['block', 'flow-root', 'list-item', 'flex', 'grid', 'table']);
  const atomicInline = new Set(['inline-block', 'inline-flex', 'inline-grid', 'inline-table']);
  // An atomic inline on a line of its own between blocks (meadow-dawn's and social-purple's label
  // headings are inline-blocks) is painted with its parent's inline content, before the blocks
  // around it: it is ordered like a block. One that shares its line with text keeps its place in it.
  const aloneOnItsLine = (el: Element) =>
    [...el.parentElement!.childNodes].every((node) =>
      node === el
      || (node.nodeType === Node.TEXT_NODE && !/\S/.test(node.nodeValue ?? ''))
      || node.nodeType === Node.COMMENT_NODE
      || (node.nodeType === Node.ELEMENT_NODE && blockLevel.has(getComputedStyle(node as Element).display)),
    );
  const pending = [...document.querySelectorAll('#cards > *')];
  for (let el = pending.pop(); el; el = pending.pop()) {
    const display = getComputedStyle(el).display;
    // display: contents has no box: its children are its parent's.
    if (display === 'contents') {
      pending.push(...el.children);
      continue;
    }
    if (!blockLevel.has(display) && !(atomicInline.has(display) && aloneOnItsLine(el))) continue;
    el.classList.add('pdf-in-order');
    if (display !== 'table' && display !== 'inline-table') pending.push(...el.children);
  }
}

/** In the page: undoes paintInDocumentOrder. */
export function undoPaintInDocumentOrder(): void {
  document.getElementById('pdf-reading-order')?.remove();
  for (const el of document.querySelectorAll('#cards .pdf-in-order')) el.classList.remove('pdf-in-order');
}
