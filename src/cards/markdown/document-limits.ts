// Bounds on what one document may ask of the Markdown pipeline, each with its own message naming
// the construct, the amount and the bound (README.md, "Limits"). Two kinds:
// - cheap scans of the raw text, before anything is parsed, for inputs whose parsing is known to
//   be quadratic (a long run of emphasis delimiters, a huge highlight list in a code fence);
// - checks of the parsed tree, before the steps that walk it recursively (to-HTML, raw HTML,
//   sanitizer, stringifier) could overflow the stack on deep nesting, and before KaTeX renders
//   every formula.
// Everything else a document can cost is capped by the Markdown worker's CPU time limit
// (markdown-pool.ts).
import type { Element, Root as HastRoot } from 'hast';
import type { Root as MdastRoot } from 'mdast';
import type { VFile } from 'vfile';
import { invalidRequest } from '../errors.js';
import { reportProgress } from './progress.js';

export const documentLimits = {
  /** Levels of the document tree: each list, list item, quote, HTML element or component is one. */
  maxNestingDepth: 100,
  /** Consecutive `*` and `_` characters: micromark's emphasis matching is quadratic in them. */
  maxDelimiterRun: 1000,
  /** Inline and display formulas; KaTeX costs about a millisecond each. */
  maxMathFormulas: 1000,
  /** Ranges in a code fence's highlight list such as `{1,3-5}`. */
  maxHighlightRanges: 100,
} as const;

const count = (n: number) => n.toLocaleString('en-US');

/** Throws invalid_request for raw text that is known to be slow to parse. Linear in the text. */
export function precheckMarkdown(markdown: string): void {
  let run = 0;
  let longest = 0;
  for (let i = 0; i < markdown.length; i++) {
    const code = markdown.charCodeAt(i);
    if (code === 42 /* * */ || code === 95 /* _ */) {
      run++;
      if (run > longest) longest = run;
    } else {
      run = 0;
    }
  }
  if (longest > documentLimits.maxDelimiterRun) {
    throw invalidRequest(
      `The document has a run of ${count(longest)} emphasis delimiters (* and _ in a row); at most ${count(documentLimits.maxDelimiterRun)} are allowed. Escape them (\\*) or put them in a code block.`,
    );
  }
  for (const fence of markdown.matchAll(/^ {0,3}(?:`{3,}|~{3,})([^\n]*)$/gm)) checkHighlightList(fence[1] ?? '');
  const depth = Math.max(deepestLinePrefix(markdown), openElementsAfter(markdown, 0, () => {}, true));
  if (depth > documentLimits.maxNestingDepth) throw nestingError(depth);
  const formulas = mathDelimiters(markdown) >> 1;
  if (formulas > documentLimits.maxMathFormulas) throw tooManyFormulas(formulas);
}

/** `$` and `$$` delimiters not escaped with a backslash: two per formula. */
function mathDelimiters(markdown: string): number {
  let delimiters = 0;
  for (let i = 0; i < markdown.length; i++) {
    if (markdown.charCodeAt(i) !== 36 /* $ */ || markdown.charCodeAt(i - 1) === 92 /* \ */) continue;
    delimiters++;
    while (markdown.charCodeAt(i + 1) === 36) i++;
  }
  return delimiters;
}

const tooManyFormulas = (formulas: number) =>
  invalidRequest(`The document has ${count(formulas)} math formulas; at most ${count(documentLimits.maxMathFormulas)} are allowed.`);

const containerMarker = /[ \t]{0,3}(?:>[ \t]?|(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$))/y;
const thematicBreak = /^[ \t]*(?:[-*_][ \t]*){3,}$/;

/**
 * The nesting a single line opens with its container markers (`> `, `- `, `1. `): parsing a line
 * like "> - > - …" costs time quadratic in its markers, so it is measured before parsing. A quote
 * counts one level, a list item two (the list and the item), and the text after them one more, as
 * in the parsed tree.
 */
function deepestLinePrefix(markdown: string): number {
  let deepest = 0;
  for (const line of markdown.split('\n')) {
    if (line.length < 2 * documentLimits.maxNestingDepth / 3 || thematicBreak.test(line)) continue;
    let depth = 0;
    containerMarker.lastIndex = 0;
    for (let match = containerMarker.exec(line); match && match[0].length > 0; match = containerMarker.exec(line)) {
      depth += match[0].trimStart().startsWith('>') ? 1 : 2;
    }
    if (containerMarker.lastIndex < line.length) depth++;
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

/** The `{1,3-5}` list of a fence's meta string, or undefined. Shared with the code block step. */
export function highlightList(meta: string): string[] | undefined {
  return /(?:^|\s)\{([\d,\s-]+)\}/.exec(meta)?.[1]?.split(',');
}

/** Throws invalid_request when a fence's highlight list has more ranges than allowed. */
export function checkHighlightList(meta: string): void {
  const ranges = highlightList(meta)?.length ?? 0;
  if (ranges > documentLimits.maxHighlightRanges) {
    throw invalidRequest(
      `A code fence has a highlight list of ${count(ranges)} ranges; at most ${count(documentLimits.maxHighlightRanges)} are allowed (write {1-500} for a span of lines).`,
    );
  }
}

function nestingError(depth: number): Error {
  return invalidRequest(
    `The document nests ${count(depth)} levels deep (lists, list items, quotes, HTML elements and components inside one another); ` +
      `at most ${count(documentLimits.maxNestingDepth)} levels are allowed.`,
  );
}

/** The error for a stack overflow that slipped past the depth checks: still a 400, never a 500. */
export function tooDeepError(): Error {
  return invalidRequest(
    `The document nests too deeply to be processed; keep lists, quotes, HTML elements and components under ${count(documentLimits.maxNestingDepth)} levels.`,
  );
}

/** HTML elements that never contain anything, or whose end tag the parser implies (they never nest by themselves). */
const nonNesting = new Set(
  'area base br col embed hr img input link meta source track wbr p li dt dd tr td th option optgroup rt rp colgroup caption thead tbody tfoot'.split(' '),
);
const tagPattern = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)\b(?:[^>"']|"[^"]*"|'[^']*')*?(\/?)>/g;

/**
 * remark, right after parsing: the depth of the Markdown tree (walked without recursion) plus the
 * depth the raw HTML in it will have once parsed (counted from its tags), and the formulas.
 */
export function remarkDocumentLimits() {
  return (tree: MdastRoot, file: VFile) => {
    let formulas = 0;
    let htmlDepth = 0;
    let htmlDeepest = 0;
    const stack: { node: MdastRoot['children'][number] | MdastRoot; depth: number }[] = [{ node: tree, depth: 0 }];
    while (stack.length > 0) {
      const { node, depth } = stack.pop()!;
      if (depth > documentLimits.maxNestingDepth) throw nestingError(deepestFrom(node, depth));
      if (node.type === 'math' || node.type === 'inlineMath') formulas++;
      if (node.type === 'html') {
        htmlDepth = openElementsAfter(node.value, htmlDepth, (reached) => {
          htmlDeepest = Math.max(htmlDeepest, depth + reached);
        });
      }
      if ('children' in node) {
        // Pushed in reverse so raw HTML is scanned in document order.
        for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, depth: depth + 1 });
      }
    }
    if (htmlDeepest > documentLimits.maxNestingDepth) throw nestingError(htmlDeepest);
    if (formulas > documentLimits.maxMathFormulas) throw tooManyFormulas(formulas);
    reportProgress(file, 'building the HTML');
  };
}

/**
 * The count of open HTML (or MDX) elements after one piece of text; `reach` sees every count
 * reached. With `deepest`, answers the highest count instead: the raw document's tag nesting, which
 * is measured before parsing because MDX parses deeply nested elements slowly.
 */
function openElementsAfter(html: string, open: number, reach: (depth: number) => void, deepest = false): number {
  let highest = open;
  for (const [, closing, name, selfClosing] of html.matchAll(tagPattern)) {
    if (nonNesting.has(name!.toLowerCase()) || selfClosing) continue;
    if (closing) open = Math.max(0, open - 1);
    else {
      reach(++open);
      highest = Math.max(highest, open);
    }
  }
  return deepest ? highest : open;
}

/** The full depth below an over-deep node, for the message (iterative as well). */
function deepestFrom(start: unknown, startDepth: number): number {
  let deepest = startDepth;
  const stack: { node: { children?: unknown }; depth: number }[] = [{ node: start as { children?: unknown }, depth: startDepth }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    deepest = Math.max(deepest, depth);
    if (Array.isArray(node.children)) for (const child of node.children as { children?: unknown }[]) stack.push({ node: child, depth: depth + 1 });
  }
  return deepest;
}

/** rehype, after raw HTML is parsed: the same bound on the HTML tree, walked without recursion. */
export function rehypeDepthLimit() {
  return (tree: HastRoot) => {
    const stack: { node: HastRoot | Element; depth: number }[] = [{ node: tree, depth: 0 }];
    while (stack.length > 0) {
      const { node, depth } = stack.pop()!;
      if (depth > documentLimits.maxNestingDepth) throw nestingError(deepestFrom(node, depth));
      for (const child of node.children) if (child.type === 'element') stack.push({ node: child, depth: depth + 1 });
    }
  };
}
