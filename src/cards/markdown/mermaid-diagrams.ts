// ```mermaid fences → diagram images. Runs after the sanitizer and before the code block step: the
// fence's text is the diagram's source, which the drawer (Mermaid in a page of its own, see
// src/cards/diagrams/diagram-page.ts) turns into a PNG in the card's theme; the card gets
//   <figure class="diagram" data-text-px><img src="data:image/png;base64,…" width height alt></figure>
// which scales like any image; one drawn to be cut over several cards carries data-cuts (where
// it may be cut: slice-diagrams.ts in the pagination), and one too wide to read on a card is
// folded into rows, a window on the picture each (figure.diagram-folded).
// A diagram that cannot be drawn becomes
//   <figure class="diagram-error"><figcaption>why</figcaption><pre><code class="language-mermaid">source</code></pre></figure>
// whose source the code block step then frames like any code. Without a drawer (the Markdown
// pipeline used on its own) the fences stay code blocks.
import type { Element, Parents, Root } from 'hast';
import { visit } from 'unist-util-visit';
import type { VFile } from 'vfile';
import { diagramAlt } from '../alt-text/diagram-alt.js';
import type { DrawnDiagram } from '../diagrams/diagram-page.js';
import type { FoldedRow } from '../diagrams/fold-in-page.js';
import { diagramLimits } from '../diagrams/diagram-limits.js';
import { invalidRequest } from '../errors.js';
import { linkedImages } from './inline-remote-images.js';
import { reportProgress } from './progress.js';

/** Draws one diagram's source as an image in the request's theme. */
export interface DiagramDrawer {
  draw(source: string): Promise<DrawnDiagram>;
}

declare module 'vfile' {
  interface DataMap {
    diagrams: DiagramDrawer;
  }
}

const count = (n: number) => n.toLocaleString('en-US');

export function rehypeMermaidDiagrams() {
  return async (tree: Root, file: VFile) => {
    const drawer = file.data.diagrams;
    const fences: { pre: Element; code: Element; parent: Parents }[] = [];
    visit(tree, 'element', (node: Element, _index, parent) => {
      if (node.tagName !== 'pre' || !parent) return;
      const code = node.children.find((child): child is Element => child.type === 'element' && child.tagName === 'code');
      const classes = Array.isArray(code?.properties.className) ? code.properties.className.map((name) => String(name).toLowerCase()) : [];
      if (code && classes.includes('language-mermaid')) fences.push({ pre: node, code, parent });
    });
    if (fences.length === 0) return;
    if (fences.length > diagramLimits.maxDiagramsPerDocument) {
      throw invalidRequest(
        `The document has ${count(fences.length)} mermaid diagrams; at most ${count(diagramLimits.maxDiagramsPerDocument)} are drawn per request. Split the document into several requests.`,
      );
    }
    for (const { pre, code } of fences) {
      const length = sourceOf(code).length;
      if (length > diagramLimits.maxSourceChars) {
        const line = pre.position?.start.line;
        throw invalidRequest(
          `The mermaid diagram${line ? ` at line ${line}` : ''} is ${count(length)} characters long; at most ${count(diagramLimits.maxSourceChars)} are allowed per diagram. Split it into smaller diagrams.`,
        );
      }
    }
    if (!drawer) return;
    // One at a time: a document's diagrams queue behind one another, not in front of other requests'.
    for (const { pre, code, parent } of fences) {
      const line = pre.position?.start.line;
      reportProgress(file, `drawing the mermaid diagram${line ? ` at line ${line}` : ''}`);
      const source = sourceOf(code);
      const drawn = await drawer.draw(source);
      const index = parent.children.indexOf(pre);
      if (index >= 0) parent.children[index] = drawn.ok ? diagramFigure(drawn, source) : failedDiagram(pre, source, drawn.message);
    }
    reportProgress(file, 'building the HTML');
  };
}

function diagramFigure(drawn: Extract<DrawnDiagram, { ok: true }>, source: string): Element {
  const image: Element = {
    type: 'element',
    tagName: 'img',
    properties: {
      src: drawn.link ?? `data:image/png;base64,${Buffer.from(drawn.png).toString('base64')}`,
      width: Math.round(drawn.width),
      height: Math.round(drawn.height),
      alt: diagramAlt(source),
    },
    children: [],
  };
  if (drawn.link) linkedImages.add(image);
  // Its smallest text as laid out: the pagination cuts or scales it no further than the floor.
  const textPx = drawn.textPx ? { dataTextPx: drawn.textPx.toFixed(1) } : {};
  if (drawn.rows?.length) return foldedFigure(image, drawn.width, drawn.height, drawn.rows, textPx);
  // Where a diagram too tall for a card (or for the room under its heading) may be cut, fractions
  // of its height: the pagination cuts it there rather than shrink its text under the floor.
  const cuts = drawn.cuts?.length ? { dataCuts: drawn.cuts.map((cut) => cut.toFixed(4)).join(' ') } : {};
  return { type: 'element', tagName: 'figure', properties: { className: ['diagram'], ...cuts, ...textPx }, children: [image] };
}

/**
 * A diagram folded into rows (too wide to read at the card's width): one window per row on the
 * same picture, each the size of its part and showing it, one under the other. The pagination takes
 * each row as a piece, so the rows may go on over cards. The picture is named once: the other
 * windows repeat it for the eye only.
 */
function foldedFigure(image: Element, width: number, height: number, rows: FoldedRow[], textPx: Element['properties']): Element {
  // Whole px, so that neighbouring parts meet without a seam.
  const x = (fraction: number) => Math.round(fraction * width);
  const y = (fraction: number) => Math.round(fraction * height);
  const windows = rows.map((row, k): Element => {
    const copy: Element = {
      ...image,
      properties: {
        ...image.properties,
        ...(k > 0 ? { alt: '', ariaHidden: 'true' } : {}),
        // Whatever frame a theme gives pictures would be cut by the window: none here.
        style: `flex:none;width:${Math.round(width)}px;height:${Math.round(height)}px;max-width:none;max-height:none;margin:${-y(row.top)}px 0 0 ${-x(row.left)}px;padding:0;border:0;border-radius:0;box-shadow:none;background:none;transform:none`,
      },
    };
    if (linkedImages.has(image)) linkedImages.add(copy);
    return {
      type: 'element',
      tagName: 'div',
      // A flex box, so that the pagination takes the window as one piece and does not open it.
      properties: { className: ['diagram-row'], style: `display:flex;width:${x(row.right) - x(row.left)}px;height:${y(row.bottom) - y(row.top)}px;overflow:hidden;margin:0 auto` },
      children: [copy],
    };
  });
  return { type: 'element', tagName: 'figure', properties: { className: ['diagram', 'diagram-folded'], ...textPx }, children: windows };
}

function failedDiagram(pre: Element, source: string, message: string): Element {
  return {
    type: 'element',
    tagName: 'figure',
    properties: { className: ['diagram-error'] },
    children: [
      { type: 'element', tagName: 'figcaption', properties: {}, children: [{ type: 'text', value: `This diagram could not be drawn: ${message.slice(0, 1000)}` }] },
      {
        type: 'element',
        tagName: 'pre',
        properties: {},
        position: pre.position,
        children: [{ type: 'element', tagName: 'code', properties: { className: ['language-mermaid'] }, children: [{ type: 'text', value: source }] }],
      },
    ],
  };
}

/** The diagram as written in the fence (the HTML step adds a line break at its end). */
const sourceOf = (code: Element) => textOf(code).replace(/\n$/, '');

function textOf(node: Element): string {
  return node.children.map((child) => (child.type === 'text' ? child.value : child.type === 'element' ? textOf(child) : '')).join('');
}
