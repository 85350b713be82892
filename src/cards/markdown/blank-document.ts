// A document that draws nothing a reader sees (white space, empty raw HTML such as `<div> </div>`
// or `<p></p>`, `<br>`, comments, rules alone) is drawn as empty Markdown is, with the default
// heading (src/cards/request/schema.ts), in every split mode: never as an empty card.
import type { Element, Root, RootContent } from 'hast';
import type { VFile } from 'vfile';

/** Elements that show something without any text of their own. */
const drawingTags = new Set(['img', 'svg', 'video', 'audio', 'picture', 'canvas', 'iframe', 'object', 'embed', 'input', 'table', 'math', 'progress', 'meter']);

/** White space, and the zero-width characters that draw nothing either. */
const blankText = /^[\s\u200b-\u200d\u2060\ufeff]*$/;

/**
 * An element with an inline style may paint a box of its own (a background, a border, a height) with
 * no text in it: only the browser can tell, and pagination does (paginate/css.ts), so here it counts
 * as drawing.
 */
const hasInlineStyle = (element: Element): boolean => {
  const style = element.properties.style;
  return typeof style === 'string' && style.trim() !== '';
};

/** The frame of a picture without alt text that could not be loaded (placeholder-images.ts) holds no text. */
const isPicturePlaceholder = (element: Element): boolean => Array.isArray(element.properties.className) && element.properties.className.includes('image-placeholder');

function drawsSomething(node: Root | RootContent): boolean {
  if (node.type === 'text') return !blankText.test(node.value);
  if (node.type === 'element' && (drawingTags.has(node.tagName) || hasInlineStyle(node) || isPicturePlaceholder(node))) return true;
  return 'children' in node && node.children.some(drawsSomething);
}

declare module 'vfile' {
  interface DataMap {
    /** The document draws nothing (see blank-document.ts). */
    blankDocument: boolean;
  }
}

/** Marks the file when its HTML tree draws nothing; renderMarkdown then renders the default document. */
export function rehypeMarkBlankDocument() {
  return (tree: Root, file: VFile) => {
    file.data.blankDocument = !drawsSomething(tree);
  };
}
