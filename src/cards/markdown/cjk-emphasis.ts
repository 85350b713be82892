// Emphasis (`*强调*`, <em>, <i>) over Chinese or Japanese text. The CJK faces have no italic, so
// the browser would slant the glyphs synthetically, which reads as a mistake; CJK typesetting
// marks emphasis with dots instead. Each CJK run inside emphasis is wrapped in span.cjk-em, which
// themes/_base.css draws upright with emphasis dots (Latin words around it stay italic).
import type { Element, ElementContent, Root } from 'hast';
import { SKIP, visit } from 'unist-util-visit';
import { isHighlightedCode } from './highlighted-code.js';
import { spanCjkRuns } from './cjk-upright.js';

export function rehypeCjkEmphasis() {
  return (tree: Root) => {
    visit(tree, 'element', (node: Element) => {
      if (isHighlightedCode(node)) return SKIP;
      if (node.tagName !== 'em' && node.tagName !== 'i') return;
      node.children = node.children.flatMap(wrapRuns);
    });
  };
}

function wrapRuns(node: ElementContent): ElementContent[] {
  if (node.type === 'element') {
    if (node.tagName !== 'code' && !isCjkEm(node)) node.children = node.children.flatMap(wrapRuns);
    return [node];
  }
  return node.type === 'text' ? spanCjkRuns(node.value, 'cjk-em') : [node];
}

const isCjkEm = (node: Element) => Array.isArray(node.properties.className) && node.properties.className.includes('cjk-em');
