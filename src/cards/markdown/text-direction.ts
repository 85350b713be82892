// Right-to-left text (Arabic, Hebrew) in any theme: every block takes its direction from its own
// first strong letter, so an Arabic paragraph, list or quote runs and aligns right to left in a
// left-to-right card and the other way round. Text blocks get `dir="auto"`. Containers (lists,
// items, quotes, tables) cannot: `dir="auto"` skips children that carry their own `dir`, so a
// quote of Arabic paragraphs would stay left to right; they get the direction of their first
// strong letter written out. Themes mirror their decorations with logical properties
// (themes/README.md §2).
import type { Element, Root } from 'hast';
import { toString as textOf } from 'hast-util-to-string';
import { SKIP, visit } from 'unist-util-visit';
import { isHighlightedCode } from './highlighted-code.js';

const textBlocks = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dt', 'dd', 'td', 'th', 'figcaption', 'summary']);
const containers = new Set(['ul', 'ol', 'li', 'blockquote', 'table', 'dl']);

/** The first letter decides, as the Unicode bidi algorithm's first-strong rule does (P2–P3). */
const firstLetter = /\p{L}/u;
const rightToLeft = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Adlam}]/u;

/** Whether `text`'s first letter is of a right-to-left script: the direction of a container of blocks with their own `dir`. */
export function runsRightToLeft(text: string): boolean {
  const letter = firstLetter.exec(text)?.[0];
  return letter !== undefined && rightToLeft.test(letter);
}

export function rehypeTextDirection() {
  return (tree: Root) => {
    visit(tree, 'element', (node: Element) => {
      if (isHighlightedCode(node)) return SKIP;
      if (node.properties.dir !== undefined) return;
      // A block without a letter (a year in a table cell, a dash) would resolve left to right:
      // it keeps the direction of what holds it, so a number column of an Arabic table aligns right.
      if (textBlocks.has(node.tagName)) {
        if (firstLetter.test(textOf(node))) node.properties.dir = 'auto';
      }
      else if (containers.has(node.tagName)) {
        if (runsRightToLeft(textOf(node))) node.properties.dir = 'rtl';
      }
    });
  };
}
