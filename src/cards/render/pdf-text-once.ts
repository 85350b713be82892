// A PDF's text layer holds each text of a card once. Chromium's PDF (Skia) draws a text shadow and
// a stroked text as the glyphs' outlines plus an invisible copy of the text, so that it stays
// selectable; and a pseudo-element's `content` is text like any other. A heading with a glow, an
// outline or a glitched copy (`content: attr(data-text)`) therefore came out of select-all and
// copy two to four times, and typewriter's ink bleed doubled every line. aria-hidden changes none
// of that. What Skia draws as a picture holds no text, and it draws anything under a CSS filter
// as one. So, before printing (render-page.ts, printCards):
//
// - A pseudo-element that draws text with a shadow or a stroke, or copies its element's text
//   (themes' attr(data-text), which Chromium reports resolved), gets a filter that changes nothing
//   to the eye, `opacity(1)`, and is drawn as a picture. (A rule by class: a page script cannot
//   style a pseudo-element itself.)
// - Text with a shadow loses it, and a copy of its block's inline content with transparent text
//   draws the shadow instead, under a filter: a picture of the shadow alone, laid exactly under the
//   text, above the block's background (the block is isolated, so the copy's z-index of -1 stays
//   inside it; copies of its text behind it at that z-index go one lower, as the shadow is drawn
//   with the text, over them). Each element of the copy keeps the shadow computed on the original
//   (`currentColor` would be the copy's transparent), the block's pseudo-elements the one they
//   inherited, and its first line is indented as far as a theme's ::before pushes the text. A
//   copy that still does not fall on the text to half a px is removed: that block's shadow is left
//   out of the PDF.
//
// Pictures are drawn at about twice the card's CSS px, the resolution of a card's PNG.
//
// Runs in the page as `RenderPage.run` runs functions: no named inner functions, no imports.

/** The rules of the classes the page script gives; it adds them to the page as style#pdf-text-once. */
export const pdfTextOnceCss = `
.pdf-before-as-picture::before, .pdf-after-as-picture::after { filter: opacity(1); }
.pdf-shadowed { isolation: isolate; }
.pdf-shadowed, .pdf-shadowed *:not(.pdf-shadow-copy, .pdf-shadow-copy *) { text-shadow: none !important; }
.pdf-shadowed::before, .pdf-shadowed::after { text-shadow: var(--pdf-text-shadow); }
.pdf-before-under-shadow::before, .pdf-after-under-shadow::after { z-index: -2 !important; }
.pdf-shadow-copy { position: absolute !important; z-index: -1 !important; margin: 0 !important; padding: 0 !important; border: 0 !important; pointer-events: none; filter: opacity(1) !important; }
.pdf-shadow-copy, .pdf-shadow-copy * {
  color: transparent !important; -webkit-text-fill-color: transparent !important; -webkit-text-stroke-color: transparent !important;
  background: none !important; border-color: transparent !important; box-shadow: none !important; outline-color: transparent !important;
  text-decoration-color: transparent !important;
}
.pdf-shadow-copy img, .pdf-shadow-copy svg, .pdf-shadow-copy *::before, .pdf-shadow-copy *::after { visibility: hidden !important; }
`;

/** In the page: prepares every card in #cards so that the PDF's text holds each text once. */
export function drawTextOnceInPdf(css: string): void {
  const style = document.createElement('style');
  style.id = 'pdf-text-once';
  style.textContent = css;
  document.head.append(style);
  const cards = document.getElementById('cards')!;
  const inline = (el: Element) => {
    const display = getComputedStyle(el).display;
    return display.startsWith('inline') || display === 'contents';
  };
  const px = (value: string) => parseFloat(value) || 0;
  const bare = (text: string) => text.replace(/[\u200b\s]+/g, ' ').trim();

  // Pseudo-elements that draw text with a shadow or a stroke, or a copy of their element's text.
  const elements = [...cards.querySelectorAll('*')];
  for (const el of elements) {
    for (const pseudo of ['before', 'after']) {
      const cs = getComputedStyle(el, `::${pseudo}`);
      if (cs.content === 'none' || cs.content === 'normal' || cs.content === '""' || cs.filter !== 'none') continue;
      // Chromium gives attr(data-text) resolved: a quoted copy of the element's text (with the zero-width break hints of data-text).
      const copiesText = cs.content.includes('attr(') || (cs.content.startsWith('"') && bare(cs.content.slice(1, -1)) === bare(el.textContent ?? ''));
      const effect = cs.textShadow !== 'none' || px(cs.webkitTextStrokeWidth) > 0 || copiesText;
      if (effect) el.classList.add(`pdf-${pseudo}-as-picture`);
    }
  }

  // Blocks whose own text (or their inline elements' text) has a shadow.
  const blocks = new Set<Element>();
  const walker = document.createTreeWalker(cards, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!/\S/.test(node.nodeValue ?? '') || getComputedStyle(node.parentElement!).textShadow === 'none') continue;
    let block: Element | null = node.parentElement;
    while (block && inline(block)) block = block.parentElement;
    if (block && cards.contains(block) && block !== cards) blocks.add(block);
  }
  const range = document.createRange();
  const firstAndLast = (text: Node) => {
    range.selectNodeContents(text);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 || r.height > 0);
    return rects.length === 0 ? [] : [rects[0]!, rects[rects.length - 1]!];
  };
  for (const block of blocks) {
    const cs = getComputedStyle(block);
    const shadow = cs.textShadow;
    const copy = document.createElement('div');
    copy.className = 'pdf-shadow-copy';
    copy.setAttribute('aria-hidden', 'true');
    // The block's inline content only: a nested block (a sub-list) is a block of its own.
    const pairs: Array<[Node, Node]> = [];
    for (const child of block.childNodes) {
      if (child.nodeType === Node.ELEMENT_NODE && !inline(child as Element)) continue;
      if (child.nodeType !== Node.ELEMENT_NODE && child.nodeType !== Node.TEXT_NODE) continue;
      const clone = child.cloneNode(true);
      // Each element's shadow as computed on the text: `currentColor` (typewriter's bold) would be the copy's transparent.
      if (clone.nodeType === Node.ELEMENT_NODE) {
        const a = document.createTreeWalker(child, NodeFilter.SHOW_ELEMENT);
        const b = document.createTreeWalker(clone, NodeFilter.SHOW_ELEMENT);
        for (let x: Node | null = a.currentNode, y: Node | null = b.currentNode; x && y; x = a.nextNode(), y = b.nextNode()) {
          (y as HTMLElement).style.setProperty('text-shadow', getComputedStyle(x as Element).textShadow, 'important');
        }
      }
      copy.append(clone);
      pairs.push([child, clone]);
    }
    const box = block.getBoundingClientRect();
    const contentLeft = box.left + px(cs.borderLeftWidth) + px(cs.paddingLeft);
    const contentTop = box.top + px(cs.borderTopWidth) + px(cs.paddingTop);
    copy.style.width = `${block.clientWidth - px(cs.paddingLeft) - px(cs.paddingRight)}px`;
    copy.style.textShadow = shadow;
    copy.style.left = '0px';
    copy.style.top = '0px';
    // Its own pseudo-elements (drawn as pictures above) keep the shadow they inherited, unless they have their own.
    (block as HTMLElement).style.setProperty('--pdf-text-shadow', shadow);
    block.classList.add('pdf-shadowed');
    // The shadow is drawn with the text, over the block's copies behind it (cyberpunk's glitched h1):
    // those at the copy's own z-index go one lower.
    for (const pseudo of ['before', 'after']) {
      if (getComputedStyle(block, `::${pseudo}`).zIndex === '-1') block.classList.add(`pdf-${pseudo}-under-shadow`);
    }
    block.append(copy);
    const placed = copy.getBoundingClientRect();
    copy.style.left = `${contentLeft - placed.left}px`;
    copy.style.top = `${contentTop - placed.top}px`;
    // Every text of the copy where the block's own is: its first and last line boxes.
    const texts: Array<[Node, Node]> = [];
    for (const [original, clone] of pairs) {
      if (original.nodeType === Node.TEXT_NODE) {
        texts.push([original, clone]);
        continue;
      }
      const a = document.createTreeWalker(original, NodeFilter.SHOW_TEXT);
      const b = document.createTreeWalker(clone, NodeFilter.SHOW_TEXT);
      for (let x = a.nextNode(), y = b.nextNode(); x && y; x = a.nextNode(), y = b.nextNode()) texts.push([x, y]);
    }
    const offsets = () =>
      texts.flatMap(([original, clone]) => {
        const [o, c] = [firstAndLast(original), firstAndLast(clone)];
        return o.map((rect, i) => ({ dx: rect.left - (c[i]?.left ?? Number.NaN), dy: rect.top - (c[i]?.top ?? Number.NaN) }));
      });
    const aligned = () => offsets().every(({ dx, dy }) => Math.abs(dx) <= 0.5 && Math.abs(dy) <= 0.5);
    if (aligned()) continue;
    // Text the block's ::before pushes along its first line: the copy's first line is indented as far.
    const first = offsets()[0];
    if (first && Math.abs(first.dy) <= 0.5 && Number.isFinite(first.dx)) {
      copy.style.textIndent = `calc(${cs.textIndent} + ${cs.direction === 'rtl' ? -first.dx : first.dx}px)`;
      if (aligned()) continue;
    }
    copy.remove();
  }
}

/** In the page: undoes drawTextOnceInPdf. */
export function undoTextOnceInPdf(): void {
  document.getElementById('pdf-text-once')?.remove();
  for (const copy of document.querySelectorAll('#cards .pdf-shadow-copy')) copy.remove();
  for (const el of document.querySelectorAll('#cards .pdf-shadowed, #cards .pdf-before-as-picture, #cards .pdf-after-as-picture')) {
    el.classList.remove('pdf-shadowed', 'pdf-before-as-picture', 'pdf-after-as-picture', 'pdf-before-under-shadow', 'pdf-after-under-shadow');
    (el as HTMLElement).style.removeProperty('--pdf-text-shadow');
  }
}
