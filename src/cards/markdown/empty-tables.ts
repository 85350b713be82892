// Drops tables that hold no cell. READMEs lay examples out side by side in raw HTML (`<table>`,
// a comment, then Markdown headings, code and diagrams, as Mermaid's does); HTML parsing moves
// that Markdown out in front of the table, which is left empty, and the themes drew its frame (a
// border, a shadow, a rounded box) with nothing in it, on a card of its own or at a card's foot.
import type { Element, Root } from 'hast';
import { SKIP, visit } from 'unist-util-visit';
import type { VFile } from 'vfile';

/** Only raw HTML makes a table without cells (a GFM table always has its header row). */
const rawTable = /<table[\s>]/i;

const holdsCell = (node: Element): boolean =>
  node.children.some((child) => child.type === 'element' && (child.tagName === 'td' || child.tagName === 'th' || holdsCell(child)));

/** rehype: removes every <table> without a td or th, when the source has raw HTML tables at all. */
export function rehypeDropEmptyTables() {
  return (tree: Root, file: VFile) => {
    if (!rawTable.test(String(file.value))) return;
    visit(tree, 'element', (node, index, parent) => {
      if (node.tagName !== 'table' || holdsCell(node) || !parent || index === undefined) return;
      parent.children.splice(index, 1);
      return [SKIP, index];
    });
  };
}
