// Whether an image (or the placeholder of one that could not be loaded) is a block or part of a
// line, decided from where the author put it, as GitHub does:
//   - alone in its paragraph (maybe inside a link): a block, the default (themes/_base.css);
//   - sharing its paragraph only with other images, as a README's row of badges: `image-inline`,
//     drawn at its own size in a row that wraps like words;
//   - inside a sentence, as an icon among words: `image-in-text`, drawn the height of the line.
import type { Element, ElementContent, Root } from 'hast';
import { SKIP, visit } from 'unist-util-visit';
import { isHighlightedCode } from './highlighted-code.js';

const textBlocks = new Set(['p', 'li', 'dd', 'dt', 'td', 'th', 'figcaption', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'summary']);
/** Blocks that may sit inside a text block (a list item's sub-list or quote) and have lines of their own. */
const nestedBlocks = new Set([...textBlocks, 'ul', 'ol', 'pre', 'blockquote', 'div', 'table', 'figure', 'details', 'section']);

const isImage = (node: Element) =>
  node.tagName === 'img' || (node.tagName === 'span' && Array.isArray(node.properties.className) && node.properties.className.includes('image-placeholder'));

export function rehypeImageLayout() {
  return (tree: Root) => {
    visit(tree, 'element', (block: Element) => {
      if (isHighlightedCode(block)) return SKIP;
      if (!textBlocks.has(block.tagName)) return;
      const found = { images: [] as Element[], text: false };
      collect(block.children, found);
      if (found.images.length === 0 || (found.images.length === 1 && !found.text)) return;
      const placement = found.text ? 'image-in-text' : 'image-inline';
      for (const image of found.images) {
        const classes = Array.isArray(image.properties.className) ? image.properties.className : [];
        image.properties.className = [...classes, placement];
      }
    });
  };
}

/** The images of a block's own lines (not of blocks nested in it) and whether words share them. */
function collect(children: ElementContent[], found: { images: Element[]; text: boolean }): void {
  for (const child of children) {
    if (child.type === 'text') found.text ||= child.value.trim() !== '';
    if (child.type !== 'element' || nestedBlocks.has(child.tagName)) continue;
    if (isImage(child)) found.images.push(child);
    else if (child.tagName !== 'br') collect(child.children, found);
  }
}
