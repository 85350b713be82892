// Adds the attributes the card DOM contract promises themes (docs/themes.md#card-dom-contract):
// h1–h3 carry `data-text` with their text (for outlined or duplicated heading effects) and list
// items carry `data-index` (for custom numbering with `content: attr(data-index)`).
// Runs after sanitizing, so these attributes are ours, never the author's.
import type { Root, Element } from 'hast';
import { toString as textOf } from 'hast-util-to-string';
import { SKIP, visit } from 'unist-util-visit';
import { isHighlightedCode } from './highlighted-code.js';

export function rehypeAnnotateForThemes() {
  return (tree: Root) => {
    visit(tree, 'element', (node: Element) => {
      if (isHighlightedCode(node)) return SKIP;
      if (node.tagName === 'h1' || node.tagName === 'h2' || node.tagName === 'h3') {
        node.properties.dataText = textOf(node).trim();
      }
      if (node.tagName === 'ol' || node.tagName === 'ul') {
        const start = node.tagName === 'ol' ? Number(node.properties.start ?? 1) || 1 : 1;
        let index = start;
        for (const child of node.children) {
          if (child.type === 'element' && child.tagName === 'li') child.properties.dataIndex = String(index++);
        }
      }
    });
  };
}
