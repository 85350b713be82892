// Marks text blocks written mostly in Chinese, Japanese or Korean with `data-cjk`, for what suits
// CJK and not Latin (themes/_base.css, themes/README.md §2): justified text, which a CJK line
// stretches between any two characters but a Latin line only at its few spaces; and no slanted
// copy of a face without italics where a theme sets a whole quote or title in italics. Blocks
// with any Korean also get `data-korean`: Korean puts spaces between words and breaks lines
// there, not between any two syllables as Chinese and Japanese do (word-break: keep-all), in a
// paragraph that is mostly English as much as in one all in Korean.
import type { Element, Root } from 'hast';
import { toString as textOf } from 'hast-util-to-string';
import { SKIP, visit } from 'unist-util-visit';
import { isHighlightedCode } from './highlighted-code.js';

const textBlocks = new Set(['p', 'li', 'dd', 'dt', 'td', 'th', 'figcaption', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'summary']);
const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]/u;
const hangul = /\p{Script=Hangul}/u;
const letter = /\p{L}/u;

/** Whether `text` is mostly CJK (`cjk`, counting letters only) and has any Korean (`korean`). */
export function cjkShare(text: string): { cjk: boolean; korean: boolean } {
  let letters = 0;
  let cjkLetters = 0;
  let hangulLetters = 0;
  for (const character of text) {
    if (!letter.test(character)) continue;
    letters++;
    if (cjk.test(character)) cjkLetters++;
    if (hangul.test(character)) hangulLetters++;
  }
  return { cjk: letters > 0 && cjkLetters * 2 >= letters, korean: hangulLetters > 0 };
}

export function rehypeMarkCjkBlocks() {
  return (tree: Root) => {
    visit(tree, 'element', (node: Element) => {
      if (isHighlightedCode(node)) return SKIP;
      if (!textBlocks.has(node.tagName)) return;
      const share = cjkShare(textOf(node));
      if (share.cjk) node.properties.dataCjk = '';
      if (share.korean) node.properties.dataKorean = '';
    });
  };
}
