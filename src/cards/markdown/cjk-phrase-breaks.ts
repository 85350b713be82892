// Chinese and Japanese lines break between phrases, not inside words (cjk-phrases.ts decides
// where): each block with CJK text gets a <wbr> at every point a line may break and the
// attribute `data-phrases`, which themes/_base.css draws with `word-break: keep-all`, so the page
// breaks its CJK text only there. The block's last few letters get no break (and no-break
// spaces), so its last line never holds one or two letters alone; so do Korean blocks, whose
// words the page keeps whole itself. Code, math and tag chips are never segmented; a document
// without Chinese, Japanese or Korean letters is not walked at all.
import type { Element, ElementContent, Root, Text } from 'hast';
import { toString as textOf } from 'hast-util-to-string';
import { SKIP, visit } from 'unist-util-visit';
import { cjkLanguage, hasCjkLetters, hasEastAsianLetters, holdTogether, joinSeparators, phraseBreaks } from './cjk-phrases.js';

/** Inline elements whose text flows on with the text around them. */
const inline = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'data', 'del', 'dfn', 'em', 'i', 'ins', 'mark', 'q', 's', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u']);
/** Headings: large type, whose lines hold few characters (see HeldEnd). */
const headings = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Elements whose text is never segmented: code keeps its own breaks, math and chips are one piece. */
const untouchedTags = new Set(['pre', 'code', 'kbd', 'samp', 'script', 'style', 'svg', 'math', 'textarea']);
const untouchedClasses = ['katex', 'katex-display', 'hashtag', 'image-placeholder', 'author-line'];
/** Emphasis, marks and links up to `longestTerm` characters name one thing ("**小红书**"): kept whole. */
const terms = new Set(['a', 'b', 'em', 'i', 'mark', 'strong']);
const longestTerm = 8;
/** Elements that end a line of the text around them (anything else, an image or code, sits in the line). */
const lineEnding = new Set(['br', 'p', 'div', 'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'pre', 'blockquote', 'table', 'figure', 'figcaption', 'hr', 'details', 'summary', 'section', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

const untouched = (node: Element) =>
  untouchedTags.has(node.tagName) || (Array.isArray(node.properties.className) && node.properties.className.some((name) => untouchedClasses.includes(String(name))));

/** A stretch of a block's text that flows as one line, across inline elements. */
interface Run {
  texts: Text[];
  /** The element holding each text. */
  parents: Element[];
  /** Where each text starts in the run. */
  starts: number[];
  text: string;
  /** Offset ranges [start, end) of short emphasis and links, whole terms that do not break. */
  terms: Array<[number, number]>;
  /** The run ends its block or a line of it (a <br>, a nested list). */
  endsLine: boolean;
}

/**
 * The runs of `block`'s own text, in order, and the elements set in its lines that are not
 * segmented (code, math, images, chips); nested blocks are left to their own visit.
 */
function runsOf(block: Element): { runs: Run[]; embedded: Array<{ element: Element; parent: Element }> } {
  const runs: Run[] = [];
  const embedded: Array<{ element: Element; parent: Element }> = [];
  const empty = (): Run => ({ texts: [], parents: [], starts: [], text: '', terms: [], endsLine: false });
  let current = empty();
  const close = (endsLine: boolean) => {
    if (current.texts.length > 0) runs.push({ ...current, endsLine });
    current = empty();
  };
  const walk = (parent: Element) => {
    for (const child of parent.children) {
      if (child.type === 'text') {
        current.texts.push(child);
        current.parents.push(parent);
        current.starts.push(current.text.length);
        current.text += child.value;
      } else if (child.type === 'element') {
        if (inline.has(child.tagName) && !untouched(child)) {
          const run = current;
          const start = run.text.length;
          walk(child);
          if (run === current && terms.has(child.tagName) && [...run.text.slice(start)].length <= longestTerm) run.terms.push([start, run.text.length]);
        }
        else if (lineEnding.has(child.tagName)) close(true);
        else {
          close(false);
          embedded.push({ element: child, parent });
        }
      }
    }
  };
  walk(block);
  close(true);
  return { runs, embedded };
}

/** An element the line lays out as one box: an image, or the chip of an image that could not be loaded. */
const isBox = (element: Element) =>
  element.tagName === 'img' || (Array.isArray(element.properties.className) && element.properties.className.includes('image-placeholder'));

const wbr = (): Element => ({ type: 'element', tagName: 'wbr', properties: {}, children: [] });

/**
 * Puts a <wbr> before each break offset of `run`, holds its text from `keepTogetherFrom` on
 * together, and joins each separator bar to the character before it.
 */
function markBreaks(run: Run, breaks: number[], keepTogetherFrom: number): void {
  run.texts.forEach((text, index) => {
    const start = run.starts[index]!;
    const end = start + text.value.length;
    const local = breaks.filter((offset) => offset >= start && offset < end).map((offset) => offset - start);
    let value = text.value;
    if (keepTogetherFrom < end) {
      const from = Math.max(0, keepTogetherFrom - start);
      value = value.slice(0, from) + holdTogether(value.slice(from));
    }
    if (local.length === 0) {
      text.value = joinSeparators(value);
      return;
    }
    const pieces: ElementContent[] = [];
    let previous = 0;
    for (const offset of local) {
      if (offset > previous) pieces.push({ type: 'text', value: joinSeparators(value.slice(previous, offset)) });
      pieces.push(wbr());
      previous = offset;
    }
    pieces.push({ type: 'text', value: joinSeparators(value.slice(previous)) });
    const parent = run.parents[index]!;
    parent.children.splice(parent.children.indexOf(text), 1, ...pieces);
  });
}

/** Adds phrase breaks to every block of `tree` that has CJK letters, and holds the end of every CJK or Korean block. */
function addPhraseBreaks(tree: Root): void {
  const text = textOf(tree);
  if (!hasEastAsianLetters(text)) return;
  const language = cjkLanguage(text);
  visit(tree, 'element', (node: Element) => {
    if (untouched(node)) return SKIP;
    if (inline.has(node.tagName)) return;
    const { runs, embedded } = runsOf(node);
    let segmented = false;
    for (const run of runs) {
      if (!hasEastAsianLetters(run.text)) continue;
      const { breaks, keepTogetherFrom } = phraseBreaks(run.text, !run.endsLine ? 'none' : headings.has(node.tagName) ? 'characters' : 'letters', language);
      const outsideTerms = breaks.filter((offset) => !run.terms.some(([start, end]) => offset > start && offset < end));
      markBreaks(run, outsideTerms, keepTogetherFrom);
      if (hasCjkLetters(run.text)) segmented = true;
    }
    if (!segmented) return;
    node.properties.dataPhrases = '';
    // A heading's copy for themes (content: attr(data-text), annotate-for-themes.ts) is laid over
    // it: it breaks at the same points, given as zero-width spaces (an attribute holds no <wbr>).
    if (node.properties.dataText !== undefined) node.properties.dataText = textWithBreaks(node).trim();
    // keep-all would also hold inline code or math to the CJK text beside it: a line may break on
    // either side of them, as before. An image or a missing image's chip is a box of its own, which
    // the line may break around whatever word-break says; <wbr>s beside one crashed Chromium's
    // renderer laying out a balanced heading that shrinks to fit (notebook's and meadow-dawn's h2
    // holding a README's row of badges).
    for (const { element, parent } of embedded.filter(({ element }) => !isBox(element))) {
      parent.children.splice(parent.children.indexOf(element), 1, wbr(), element, wbr());
    }
  });
}

/** The text of `node` with a zero-width space for each <wbr>. */
function textWithBreaks(node: Element): string {
  return node.children.map((child) => (child.type === 'text' ? child.value : child.type !== 'element' ? '' : child.tagName === 'wbr' ? '\u200b' : textWithBreaks(child))).join('');
}

export function rehypeCjkPhraseBreaks() {
  return (tree: Root) => {
    addPhraseBreaks(tree);
  };
}
