// Small facts about elements and text read from the page's computed styles, shared by measuring,
// break rules and card assembly.

export const px = (value: string): number => parseFloat(value) || 0;

export const styleOf = (el: Element): CSSStyleDeclaration => getComputedStyle(el);

export const isHeading = (el: Element): boolean => /^H[1-6]$/.test(el.tagName);

/** Elements that are laid out whole, however they are displayed: a break never falls inside one. */
export const atomicTags = new Set(['IMG', 'SVG', 'VIDEO', 'CANVAS', 'FIGURE', 'MATH', 'IFRAME', 'OBJECT', 'HR', 'INPUT']);

/** An inline-level box that is laid out whole (an image, an inline-block, a formula): never split inside. */
export const isInlineAtom = (el: Element, display: string): boolean =>
  (display !== 'inline' && display !== 'contents') || atomicTags.has(el.tagName.toUpperCase());

/** Text whose white space is kept (code): there every character, even a space or newline, counts. */
export const preformatted = (node: Node): boolean => {
  const parent = node.nodeType === Node.TEXT_NODE ? node.parentElement : (node as Element);
  return parent ? /^(pre|pre-wrap|break-spaces|pre-line)$/.test(styleOf(parent).whiteSpace) : false;
};

/** Text that draws something: white space between tags does not, except in code. */
export const meaningfulText = (text: Text): boolean => (preformatted(text) ? text.data.length > 0 : /\S/.test(text.data));

// Read once per element: a document has thousands of text nodes and few distinct parents.
const lineHeights = new WeakMap<Element, number>();
export const lineHeightOf = (el: Element): number => {
  let value = lineHeights.get(el);
  if (value === undefined) {
    value = px(styleOf(el).lineHeight);
    lineHeights.set(el, value);
  }
  return value;
};

/** The position of `node` among its parent's children: the DOM offset just before it. */
export const indexOf = (node: Node): number => Array.prototype.indexOf.call(node.parentNode!.childNodes, node) as number;
