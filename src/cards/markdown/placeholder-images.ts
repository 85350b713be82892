// Images are never fetched by the browser page from the network. An image the server has not
// turned into a `data:` URI (or given a link to its copy, page-images.ts) is drawn as a visible
// placeholder carrying its alt text, so a card shows what is missing instead of a broken-image icon
// or a failed request. An image without alt text (a README's badges, an icon) is decorative, as
// HTML's alt="" says: its placeholder is hidden from screen readers, and the card's alt text
// passes over it (alt-text/read-alt-text.ts).
import type { Root, Element } from 'hast';
import { visit } from 'unist-util-visit';
import { linkedImages } from './inline-remote-images.js';

export function rehypePlaceholderForUnloadedImages() {
  return (tree: Root) => {
    visit(tree, 'element', (node: Element, index, parent) => {
      if (node.tagName !== 'img' || !parent || index === undefined) return;
      const src = typeof node.properties.src === 'string' ? node.properties.src : '';
      if (src.startsWith('data:image/') || linkedImages.has(node)) return;
      const alt = typeof node.properties.alt === 'string' ? node.properties.alt.trim() : '';
      parent.children[index] = alt ? imagePlaceholder(alt) : decorativePlaceholder();
    });
  };
}

/** The placeholder of an image without alt text: it says "image" on the card, and nothing to a screen reader. */
function decorativePlaceholder(): Element {
  return {
    type: 'element',
    tagName: 'span',
    properties: { className: ['image-placeholder'], ariaHidden: 'true' },
    children: [{ type: 'text', value: 'image' }],
  };
}

export function imagePlaceholder(alt: string): Element {
  return {
    type: 'element',
    tagName: 'span',
    properties: { className: ['image-placeholder'], role: 'img', ariaLabel: alt },
    children: [{ type: 'text', value: alt }],
  };
}
