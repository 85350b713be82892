// Images are never fetched by the browser page from the network. An image the server has not
// turned into a `data:` URI (or given a link to its copy, page-images.ts) is drawn as a visible
// placeholder carrying its alt text, so a card shows what is missing instead of a broken-image icon
// or a failed request. An image without alt text (a README's logo or badges, an icon) is
// decorative, as HTML's alt="" says: its placeholder is hidden from screen readers, and the card's
// alt text passes over it (alt-text/read-alt-text.ts). Nor does it print a word on the card, which
// would mean nothing to the reader ("image"): where the picture was a block, a frame with the
// picture sign alone keeps its place (themes/_base.css), so the creator sees a picture is missing;
// where it was part of a line (a badge in a row, an icon in a sentence, a logo in a link) it is
// left out, with the link or paragraph that held nothing else (rehypeDropDecorativePlaceholdersInLines,
// once rehypeImageLayout has placed the images).
import type { Root, Element, ElementContent } from 'hast';
import { SKIP, visit } from 'unist-util-visit';
import { isHighlightedCode } from './highlighted-code.js';
import { linkedImages } from './inline-remote-images.js';

export function rehypePlaceholderForUnloadedImages() {
  return (tree: Root) => {
    visit(tree, 'element', (node: Element, index, parent) => {
      if (isHighlightedCode(node)) return SKIP;
      if (node.tagName !== 'img' || !parent || index === undefined) return;
      const src = typeof node.properties.src === 'string' ? node.properties.src : '';
      if (src.startsWith('data:image/') || linkedImages.has(node)) return;
      const alt = typeof node.properties.alt === 'string' ? node.properties.alt.trim() : '';
      parent.children[index] = alt ? imagePlaceholder(alt) : decorativePlaceholder();
    });
  };
}

/** The placeholder of an image without alt text: no word on the card, and nothing to a screen reader. */
function decorativePlaceholder(): Element {
  return { type: 'element', tagName: 'span', properties: { className: ['image-placeholder'], ariaHidden: 'true' }, children: [] };
}

/** Elements that only wrap a picture (its link, its paragraph, a README's centring div): left out when it was all they held. */
const wrappers = new Set(['a', 'p', 'div', 'span', 'picture', 'strong', 'em', 'b', 'i', 'sub', 'sup']);

/** Leaves out the placeholders of decorative images that were part of a line (see the top of the file). */
export function rehypeDropDecorativePlaceholdersInLines() {
  return (tree: Root) => {
    dropFrom(tree);
  };
}

/** Drops the decorative placeholders in lines below `parent`; true when that left `parent` holding nothing. */
function dropFrom(parent: Root | Element): boolean {
  let dropped = false;
  parent.children = (parent.children as ElementContent[]).filter((child) => {
    if (child.type !== 'element') return true;
    if (isDecorativeInLine(child, parent) || (dropFrom(child) && wrappers.has(child.tagName))) {
      dropped = true;
      return false;
    }
    return true;
  });
  return dropped && parent.children.every((child) => child.type === 'comment' || (child.type === 'text' && child.value.trim() === ''));
}

function isDecorativeInLine(node: Element, parent: Root | Element): boolean {
  const classes = Array.isArray(node.properties.className) ? node.properties.className : [];
  if (!classes.includes('image-placeholder') || node.properties.ariaHidden !== 'true') return false;
  return classes.includes('image-inline') || classes.includes('image-in-text') || (parent.type === 'element' && parent.tagName === 'a');
}

export function imagePlaceholder(alt: string): Element {
  return {
    type: 'element',
    tagName: 'span',
    properties: { className: ['image-placeholder'], role: 'img', ariaLabel: alt },
    children: [{ type: 'text', value: alt }],
  };
}
