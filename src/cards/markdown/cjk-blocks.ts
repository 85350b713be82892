// Marks text blocks written mostly in Chinese, Japanese or Korean with `data-cjk`. Justified text
// suits CJK, whose lines can stretch between any two characters; a Latin line can only stretch
// at its few spaces and opens wide gaps. A theme that justifies does so only in these blocks
// (themes/README.md §2).
import type { Element, Root } from 'hast';
import { toString } from 'hast-util-to-string';
import { visit } from 'unist-util-visit';

const textBlocks = new Set(['p', 'li', 'dd', 'dt', 'td', 'th', 'figcaption']);
const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]/u;
const letter = /\p{L}/u;

export function rehypeMarkCjkBlocks() {
  return (tree: Root) => {
    visit(tree, 'element', (node: Element) => {
      if (!textBlocks.has(node.tagName)) return;
      let letters = 0;
      let cjkLetters = 0;
      for (const character of toString(node)) {
        if (!letter.test(character)) continue;
        letters++;
        if (cjk.test(character)) cjkLetters++;
      }
      if (letters > 0 && cjkLetters * 2 >= letters) node.properties.dataCjk = '';
    });
  };
}
