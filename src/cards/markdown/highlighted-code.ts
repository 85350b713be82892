// A code block that code-blocks.ts framed and highlighted holds only the highlighter's spans of
// text: no image, heading, paragraph or emphasis. The steps after it that look for those skip its
// contents, which in a document of long code are most of its nodes: nine fences of 500 lines are
// some 40,000 elements, and each walk of them cost about 65 ms.
import type { Element, ElementData } from 'hast';

declare module 'hast' {
  interface ElementData {
    /** Set by code-blocks.ts on the <pre> it builds. A document cannot set it: raw HTML has no way to write hast data. */
    highlightedCode?: boolean;
  }
}

/** Marks the <pre> that frames a highlighted block. */
export function markHighlightedCode(pre: Element): Element {
  // The cast: hast-util-from-parse5 declares `position` required in ElementData, which only parsed elements have.
  pre.data = { ...pre.data, highlightedCode: true } as ElementData;
  return pre;
}

export function isHighlightedCode(node: Element): boolean {
  return node.data?.highlightedCode === true;
}
