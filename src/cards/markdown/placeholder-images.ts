// Images are never fetched by the browser page (it has no network). An image the server has not
// turned into a `data:` URI (or, in a preview shown as markup, a link to its own copy) is drawn as a visible placeholder carrying its alt text, so a card
// shows what is missing instead of a broken-image icon or a failed request.
import type { Root, Element } from 'hast';
import { visit } from 'unist-util-visit';
import { linkedImages } from './inline-remote-images.js';

export function rehypePlaceholderForUnloadedImages() {
  return (tree: Root) => {
    visit(tree, 'element', (node: Element, index, parent) => {
      if (node.tagName !== 'img' || !parent || index === undefined) return;
      const src = typeof node.properties.src === 'string' ? node.properties.src : '';
      if (src.startsWith('data:image/') || linkedImages.has(node)) return;
      const alt = typeof node.properties.alt === 'string' && node.properties.alt ? node.properties.alt : 'image';
      parent.children[index] = imagePlaceholder(alt);
    });
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
