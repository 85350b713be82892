// Thai writes its repetition mark ๆ (mai yamok) after a space ("อื่น ๆ"), and the space is a line
// break opportunity: a line could begin with ๆ alone, cut from the word it repeats. The space
// before it becomes a no-break space of the same width, so the mark stays on its word's line.
import type { Root } from 'hast';
import { SKIP, visit } from 'unist-util-visit';

const spaceBeforeMark = /(?<=\S)[ \t]+(?=ๆ)/g;
/** Code keeps its characters as written. */
const verbatim = new Set(['code', 'pre', 'kbd', 'samp', 'script', 'style']);

export function rehypeKeepThaiRepetitionMark() {
  return (tree: Root) => {
    visit(tree, (node) => {
      if (node.type === 'element' && verbatim.has(node.tagName)) return SKIP;
      if (node.type === 'text' && node.value.includes('ๆ')) node.value = node.value.replace(spaceBeforeMark, '\u00a0');
      return undefined;
    });
  };
}
