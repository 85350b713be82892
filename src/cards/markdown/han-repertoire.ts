// The Chinese display faces (Ma Shan Zheng, ZCOOL KuaiLe) draw the 6,763 Han characters of GB 2312
// and no others. In a title with traditional characters, Japanese kanji or rare names, the rest
// would come from another face, two faces inside one word. A block with such characters is
// marked `data-han="full"`, and themes/_base.css draws it with faces that hold every character.
import type { Element, Root } from 'hast';
import { toString as textOf } from 'hast-util-to-string';
import { SKIP, visit } from 'unist-util-visit';
import { isHighlightedCode } from './highlighted-code.js';

const blocks = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'blockquote', 'dt', 'dd', 'td', 'th', 'figcaption', 'summary']);

let gb2312: Set<string> | undefined;
/** The Han characters of GB 2312 (rows 16–87), read through the GBK decoder of Node's ICU. */
export function gb2312Han(): Set<string> {
  if (gb2312) return gb2312;
  const decoder = new TextDecoder('gbk');
  gb2312 = new Set();
  for (let row = 0xb0; row <= 0xf7; row++) {
    for (let cell = 0xa1; cell <= 0xfe; cell++) gb2312.add(decoder.decode(Uint8Array.of(row, cell)));
  }
  return gb2312;
}

const han = /\p{Script=Han}/gu;
const hasHan = /\p{Script=Han}/u;

export function rehypeMarkHanRepertoire() {
  return (tree: Root) => {
    visit(tree, 'element', (node: Element) => {
      if (isHighlightedCode(node)) return SKIP;
      if (!blocks.has(node.tagName)) return;
      const text = textOf(node);
      if (!hasHan.test(text)) return;
      const known = gb2312Han();
      for (const [character] of text.matchAll(han)) {
        if (!known.has(character)) {
          node.properties.dataHan = 'full';
          return;
        }
      }
    });
  };
}
