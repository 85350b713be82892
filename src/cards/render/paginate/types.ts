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
}

export interface PageBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PaginationResult {
  /** The cards, in order, as laid out in the page (empty when there are more than `maxCards`). */
  boxes: PageBox[];
  /** How many cards the content needs. */
  needed: number;
}
