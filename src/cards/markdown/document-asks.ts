// The image source and diagram drawer a Markdown worker renders with. Neither waits for the main
// thread: in a document's first pass nothing is answered yet, so each records what it is asked for
// and answers at once as if it had failed (that pass's HTML is thrown away); in the second pass
// every answer came with the task (markdown-pool.ts), so each answers from those at once.
import { RemoteImageRefused, type FetchedImage, type ImageSource } from '../images/remote-image-fetcher.js';
import type { DrawnDiagram } from '../diagrams/diagram-page.js';
import type { DiagramDrawer } from './mermaid-diagrams.js';
import type { FetchedOrRefused } from './worker-protocol.js';

/** Images asked of the main thread: answered from `answers`, or recorded when there are none yet. */
export class AskedImages implements ImageSource {
  /** Sources asked for while there were no answers, in the order asked. */
  readonly asked: string[] = [];

  constructor(private readonly answers?: ReadonlyMap<string, FetchedOrRefused>) {}

  fetch(source: string): Promise<FetchedImage> {
    if (!this.answers) {
      this.asked.push(source);
      return Promise.reject(new RemoteImageRefused('not fetched yet'));
    }
    const answer = this.answers.get(source);
    if (!answer) return Promise.reject(new RemoteImageRefused('not fetched'));
    if (!answer.ok) return Promise.reject(new RemoteImageRefused(answer.message));
    const { mimeType, width, height, cssWidth } = answer;
    if ('link' in answer) return Promise.resolve({ mimeType, bytes: Buffer.alloc(0), link: { url: answer.link, byteLength: answer.byteLength }, width, height, cssWidth });
    const bytes = Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength);
    return Promise.resolve({ mimeType, bytes, width, height, cssWidth });
  }
}

/** Diagrams asked of the main thread: answered from `answers`, or recorded when there are none yet. */
export class AskedDiagrams implements DiagramDrawer {
  /** Diagram sources asked for while there were no answers, in the order asked. */
  readonly asked: string[] = [];

  constructor(private readonly answers?: ReadonlyMap<string, DrawnDiagram>) {}

  draw(source: string): Promise<DrawnDiagram> {
    if (!this.answers) this.asked.push(source);
    return Promise.resolve(this.answers?.get(source) ?? { ok: false, message: 'not drawn' });
  }
}
