// What a piece is to a reader, as far as the break rules care: a picture on its own, a caption
// under one, a line of hashtags, a paragraph that introduces what follows. Read from the DOM the
// Markdown renderer makes (markdown/hashtags.ts, markdown/image-layout.ts).
import { lineHeightOf, preformatted } from './css.js';
import type { Run } from './measure-lines.js';
import type { Piece } from './pieces.js';

/** The nodes of a line piece's run that draw something: its elements and its text that is not white space. */
const drawnNodes = (run: Run): Node[] => run.nodes.filter((node) => node.nodeType === Node.ELEMENT_NODE || /\S/.test(node.textContent ?? ''));

const isElement = (node: Node, ...tags: string[]): boolean => node.nodeType === Node.ELEMENT_NODE && tags.includes((node as Element).tagName);

/** An image on its own: a picture block, or a paragraph holding nothing but one picture. */
export function isImage(piece: Piece): boolean {
  if (piece.kind === 'block') return piece.el.tagName === 'IMG' || piece.el.tagName === 'FIGURE';
  if (piece.kind !== 'line' || piece.run!.lines.length !== 1) return false;
  const drawn = drawnNodes(piece.run!);
  return drawn.length === 1 && isElement(drawn[0]!, 'IMG');
}

/**
 * How many lines of text a line piece shows. A paragraph's line is one; a code block's source line
 * is one inline block (themes/_base.css, `.shiki .line`), which a long line wraps over several.
 */
export function visualLines(piece: Piece): number {
  const line = piece.run!.lines[piece.line!]!;
  const lineHeight = lineHeightOf(piece.run!.container);
  return lineHeight > 0 ? Math.max(1, Math.round((line.boxBottom - line.boxTop) / lineHeight)) : 1;
}

/** A line of text (not a picture alone in its paragraph): one of these alone would be a card of a single line. */
export const isTextLine = (piece: Piece): boolean => piece.kind === 'line' && !isImage(piece);

/** A line of a paragraph of hashtags alone (markdown/hashtags.ts draws each as a span.hashtag). */
export function isHashtagLine(piece: Piece): boolean {
  if (piece.kind !== 'line' || piece.run!.container.tagName !== 'P') return false;
  const drawn = drawnNodes(piece.run!);
  return drawn.length > 0 && drawn.every((node) => node.nodeType === Node.ELEMENT_NODE && (node as Element).classList.contains('hashtag'));
}

/**
 * The last line of a paragraph whose hashtags wrapped onto it, under the paragraph's text (a
 * closing line and its tags, as a note ends): a card of the line above and this one holds a
 * single line of text.
 */
export function isTrailingTagLine(piece: Piece): boolean {
  if (piece.kind !== 'line' || piece.run!.container.tagName !== 'P' || piece.line === 0 || piece.line !== piece.run!.lines.length - 1) return false;
  const drawn = drawnNodes(piece.run!);
  // Most paragraphs have no tags: their lines' boxes are not read.
  const isTag = (node: Node) => node.nodeType === Node.ELEMENT_NODE && (node as Element).classList.contains('hashtag');
  if (!drawn.some(isTag)) return false;
  const line = piece.run!.lines[piece.line!]!;
  const onLine = (rects: DOMRectList) => Array.from(rects).some((rect) => rect.height > 0 && rect.bottom > line.inkTop + 0.5 && rect.top < line.inkBottom - 0.5);
  const range = document.createRange();
  let tags = 0;
  for (const node of drawn) {
    if (isTag(node)) {
      if (onLine((node as Element).getClientRects())) tags++;
      continue;
    }
    if (node.nodeType === Node.TEXT_NODE) range.selectNodeContents(node);
    if (onLine(node.nodeType === Node.TEXT_NODE ? range.getClientRects() : (node as Element).getClientRects())) return false;
  }
  return tags > 0;
}

/**
 * A line of a caption: a paragraph right under a picture holding nothing but emphasised or small
 * text (`*Figure 1: …*` on the line after an image, as READMEs write captions).
 */
export function isCaptionLine(pieces: Piece[], i: number): boolean {
  const piece = pieces[i]!;
  if (piece.kind !== 'line' || piece.run!.container.tagName !== 'P') return false;
  const drawn = drawnNodes(piece.run!);
  if (drawn.length !== 1 || !isElement(drawn[0]!, 'EM', 'I', 'SMALL', 'CITE')) return false;
  const above = pieces[i - piece.line! - 1];
  return above !== undefined && isImage(above);
}

/**
 * The last line of a paragraph that introduces what follows: its text ends in a colon ("Install
 * it:", "步骤："). Not code, where a colon ends many lines (`def f():`).
 */
export function endsIntroduction(piece: Piece): boolean {
  if (piece.kind !== 'line' || piece.line !== piece.run!.lines.length - 1 || preformatted(piece.run!.container)) return false;
  return introducesNext(piece.run!.nodes.map((node) => node.textContent ?? '').join(''));
}

/** Whether a paragraph's text introduces what follows: it ends in a colon ("Install it:", "步骤："). */
export const introducesNext = (text: string): boolean => /[:：]\s*$/.test(text);
