// Card assembly: a card is the part of the document between two break positions, cloned into a
// copy of the empty card with every element cut by a break rebuilt around it. Elements cut at the
// top get the class split-continued, those cut at the bottom split-continues (README.md, "Split
// modes"); themes hook on them (a quote, for instance, drops its rule and ornament at a cut, all in
// CSS), and lists, tables, code and paragraphs are continued here the way a reader expects.
import type { Point } from './break-points.js';
import { codeLinesBefore, continueCode } from './continued/code.js';
import { continueList } from './continued/list.js';
import { continueParagraphs, justifyCutLines } from './continued/paragraph.js';
import { keepColumns, repeatHeaderRow } from './continued/table.js';
import { scaleTail, type ScaledTail } from './fit-to-room.js';

export class CardAssembler {
  private readonly range = document.createRange();

  constructor(
    /** The whole document in the measuring frame. */
    private readonly inner: HTMLElement,
    /** An empty fixed-size card. */
    private readonly template: HTMLElement,
    /** Where built cards are appended. */
    private readonly root: HTMLElement,
  ) {}

  /**
   * Builds the card holding the document from `start` to `end` and appends it to #cards; `scaled`:
   * its last diagram, image or table drawn smaller to fit the room left (fit-to-room.ts).
   */
  build(start: Point, end: Point, scaled?: ScaledTail): HTMLElement {
    const card = this.template.cloneNode(true) as HTMLElement;
    const cardInner = card.querySelector('.card-content-inner')!;
    // The ancestors of each end are marked before cloning, so the clones tell which elements are
    // cut; so is the element to scale, so its copy is found.
    this.markAncestors(start, 'data-split-from', true);
    this.markAncestors(end, 'data-split-to', true);
    scaled?.tail.el.setAttribute('data-scale-to-room', '');
    cardInner.appendChild(this.cloneBetween(start, end));
    this.markAncestors(start, 'data-split-from', false);
    this.markAncestors(end, 'data-split-to', false);
    scaled?.tail.el.removeAttribute('data-scale-to-room');

    const linesBefore = codeLinesBefore(start, this.inner);
    const continued = Array.from(cardInner.querySelectorAll('[data-split-from]'));
    for (const el of continued) {
      el.removeAttribute('data-split-from');
      el.classList.add('split-continued');
      continueList(el);
      repeatHeaderRow(el, this.inner);
      continueCode(el, linesBefore);
    }
    keepColumns(cardInner, this.inner);
    continueParagraphs(continued);
    const continues = Array.from(cardInner.querySelectorAll('[data-split-to]'));
    for (const el of continues) {
      el.removeAttribute('data-split-to');
      el.classList.add('split-continues');
    }
    justifyCutLines(continues);
    this.root.appendChild(card);
    const toScale = cardInner.querySelector<HTMLElement>('[data-scale-to-room]');
    if (scaled && toScale) {
      toScale.removeAttribute('data-scale-to-room');
      scaleTail(toScale, scaled);
    }
    return card;
  }

  /** A copy of the document from `start` to `end`, inside copies of all the elements around it. */
  private cloneBetween(start: Point, end: Point): Node {
    this.range.setStart(start.node, start.offset);
    this.range.setEnd(end.node, end.offset);
    let content: Node = this.range.cloneContents();
    // cloneContents leaves out the common ancestor and everything above it; put them back.
    for (let node: Node | null = this.range.commonAncestorContainer; node && node !== this.inner; node = node.parentNode) {
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      const shell = node.cloneNode(false);
      shell.appendChild(content);
      content = shell;
    }
    return content;
  }

  private markAncestors(point: Point, attribute: string, on: boolean): void {
    for (let node: Node | null = point.node; node && node !== this.inner; node = node.parentNode) {
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      if (on) (node as Element).setAttribute(attribute, '');
      else (node as Element).removeAttribute(attribute);
    }
  }
}
