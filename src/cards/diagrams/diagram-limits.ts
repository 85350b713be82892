// Bounds on the Mermaid diagrams of one document (README.md "Limits", docs/api.md#diagrams).
// The first two are refused with a 400 before anything is drawn; the others make one diagram fail
// (drawn as its source and the reason), never the request.
export const diagramLimits = {
  /** ```mermaid blocks in one document. */
  maxDiagramsPerDocument: 20,
  /** Characters of one diagram's source (Mermaid's own maxTextSize is set to the same). */
  maxSourceChars: 10_000,
  /** Edges of one diagram (Mermaid's maxEdges). */
  maxEdges: 500,
  /** How long Mermaid may take to draw one diagram in its page; the page is then closed. */
  renderTimeoutMs: 5_000,
  /** Characters of the SVG Mermaid may produce for one diagram. */
  maxSvgChars: 2_000_000,
  /** Longest side of a diagram's image in device px; a larger diagram is drawn at a lower device scale. */
  maxImageSidePx: 8_192,
  /**
   * Smallest text a diagram should show, in CSS px of the card (so it grows with fontScale like the
   * card's own text). The themes' smallest text, their footers' page labels, is 11–12 px; at 10 px a
   * 440 px card shown the width of a phone (about 390 pt) still gives letters of about 9 pt, the
   * smallest that reads comfortably. A diagram drawn smaller is redrawn taller (legibility.ts),
   * and one that stays smaller is named in the answer's warnings.
   */
  minTextPx: 10,
} as const;
