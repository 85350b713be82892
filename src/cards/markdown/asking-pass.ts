// A document with images or diagrams goes through a Markdown worker twice (markdown-worker.ts): its
// first pass only finds what to fetch and draw, and its HTML is thrown away. That pass ends right
// after the step that asks, rather than highlight its code and build HTML nobody reads: nine
// Mermaid fences of 500 lines took a worker 1 s to throw away, with another document waiting.
import type { Root } from 'hast';
import type { VFile } from 'vfile';

declare module 'vfile' {
  interface DataMap {
    /** Whether the pass has asked for something and may end (see renderMarkdown's `endOnceAsked`). */
    endOnceAsked?: () => boolean;
  }
}

/** Thrown by rehypeEndOnceAsked and caught by renderMarkdown: the pass ended early, as asked. */
export class AskingPassEnded extends Error {}

function endOnceAsked(_tree: Root, file: VFile): void {
  if (file.data.endOnceAsked?.()) throw new AskingPassEnded('the pass has asked for what it shows');
}

// Two plugins, not one used twice: unified keeps a plugin used again at its first place.
/** rehype, after the diagrams are asked for: a pass that asked for one ends before any code is highlighted. */
export const rehypeEndOnceDiagramsAsked = () => endOnceAsked;
/** rehype, after the last step that asks (for images): a pass that asked for anything ends here. */
export const rehypeEndOnceImagesAsked = () => endOnceAsked;
