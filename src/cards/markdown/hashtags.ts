// Hashtags as creators write them under a post: `#word` or `#中文标签` at the start of a line or
// after a space (or CJK punctuation) becomes span.hashtag, a tag chip that themes/_base.css and
// each theme draw (docs/themes.md#cover-signature-and-tags); a paragraph of tags alone is marked
// `data-tags`. Headings (`# Title` needs its space, so it never matches), code, links, math and
// preformatted text keep their `#` as written; `#1` (a number) and `a#b` (no space before) are left
// alone. Off with the request field `hashtags: false`.
import type { Element, ElementContent, Root, Text } from 'hast';
import type { VFile } from 'vfile';

declare module 'vfile' {
  interface DataMap {
    /** False when the request turned hashtags off. */
    hashtags: boolean;
  }
}

/**
 * `#` + letters, digits, `_` or `-`, with at least one letter; after a line start, white space, or
 * CJK punctuation (`写下来，#效率`: Chinese text has no space after its comma).
 */
const hashtag = /(^|[\s\u3000-\u303f\uff00-\uffef])#((?:[\p{L}\p{M}\p{N}_-])*\p{L}[\p{L}\p{M}\p{N}_-]*)/gu;

/** Elements whose text stays as written. */
const untouched = new Set(['code', 'pre', 'kbd', 'samp', 'a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'script', 'style', 'svg', 'math', 'textarea']);
const isUntouched = (node: Element) =>
  untouched.has(node.tagName) || (Array.isArray(node.properties.className) && node.properties.className.some((name) => /^(katex|hashtag)/.test(String(name))));

export function rehypeHashtags() {
  return (tree: Root, file: VFile) => {
    if (file.data.hashtags === false) return;
    const visitChildren = (parent: Root | Element) => {
      const children: Array<Root['children'][number]> = [];
      let lineStart = true;
      for (const child of parent.children) {
        if (child.type === 'element') {
          if (!isUntouched(child)) visitChildren(child);
          children.push(child);
          lineStart = child.tagName === 'br';
        } else if (child.type === 'text') {
          children.push(...chips(child, lineStart));
          lineStart = /[\s\u3000-\u303f\uff00-\uffef]$/.test(child.value);
        } else {
          children.push(child);
        }
      }
      parent.children = children as typeof parent.children;
      // A paragraph of tags alone (the line under a post) is marked: a theme that justifies its
      // text must not stretch a row of chips across the card (traditional-chinese.css).
      if (parent.type === 'element' && parent.tagName === 'p' && isTagsAlone(parent)) parent.properties.dataTags = '';
    };
    visitChildren(tree);
  };
}

/** Whether a paragraph holds hashtag chips and nothing else but white space and line breaks. */
function isTagsAlone(paragraph: Element): boolean {
  const isChip = (child: ElementContent) => child.type === 'element' && Array.isArray(child.properties.className) && child.properties.className.includes('hashtag');
  const isSpace = (child: ElementContent) => (child.type === 'text' && child.value.trim() === '') || (child.type === 'element' && child.tagName === 'br');
  return paragraph.children.some(isChip) && paragraph.children.every((child) => isChip(child) || isSpace(child));
}

/** The text split into plain runs and hashtag chips. `lineStart`: the text begins a line (or follows white space). */
function chips(text: Text, lineStart: boolean): ElementContent[] {
  const value = lineStart ? text.value : `\u0000${text.value}`;
  if (!value.includes('#')) return [text];
  const pieces: ElementContent[] = [];
  let last = 0;
  for (const match of value.matchAll(hashtag)) {
    const start = match.index + match[1]!.length;
    if (start > last) pieces.push({ type: 'text', value: value.slice(last, start) });
    pieces.push({ type: 'element', tagName: 'span', properties: { className: ['hashtag'] }, children: [{ type: 'text', value: `#${match[2]}` }] });
    last = start + 1 + match[2]!.length;
  }
  if (pieces.length === 0) return [text];
  if (last < value.length) pieces.push({ type: 'text', value: value.slice(last) });
  if (!lineStart) {
    // Drop the marker that stood for "not at a line start".
    const first = pieces[0]!;
    if (first.type === 'text') first.value = first.value.slice(1);
  }
  return pieces.filter((piece) => piece.type !== 'text' || piece.value !== '');
}
