// What the page-side pagination takes and gives back. These are the only types the service side
// (paginate.ts) shares with the modules of this folder, which run inside the render page.

export interface PaginationInput {
  /** An empty card of the request's theme, exactly `height` tall. */
  cardTemplate: string;
  /** The same card growing with its content: the measuring frame. */
  measureTemplate: string;
  /** Sanitized HTML of the whole document. */
  contentHtml: string;
  /** autoSplit paginates the whole document; hrSplit starts a new card at every top-level <hr>. */
  splitMode: 'autoSplit' | 'hrSplit';
  /** hrSplit with overHiddenMode: one clipped card per section, no pagination inside it. */
  clipSections: boolean;
  /** Cards beyond this are only counted, not built. */
  maxCards: number;
  /** Also return what each card holds, for checks of the result (only the reporting build can). */
  report: boolean;
}

export interface PageBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface CardReport {
  /** Text of the card, without repeated table headers. */
  text: string;
  html: string;
  /** The card's content area, in px from the card's top edge. */
  contentTop: number;
  contentBottom: number;
  /** The line box of every text fragment, and every image, in px from the card's top-left corner. */
  boxes: { top: number; bottom: number; left: number; right: number; kind: string; text: string }[];
  /** Tag of the heading that holds the card's last text or image, or "" when it is not a heading. */
  endsInHeading: string;
  /** The page label drawn in the footer. */
  label: string;
  /**
   * Where the card begins in the document, in words: `p#intro line 4` (the fifth line of that
   * paragraph), `table#t row 2`, `h2#next`, `p#next` (a paragraph from its first line), or `start`
   * for the first card of a section.
   */
  startsAt: string;
}

export interface PaginationReport {
  documentText: string;
  /** Height available to content on one card, in px. */
  available: number;
  cards: CardReport[];
}

export interface PaginationResult {
  /** The cards, in order, as laid out in the page (empty when there are more than `maxCards`). */
  boxes: PageBox[];
  /** How many cards the content needs. */
  needed: number;
  report?: PaginationReport;
}
