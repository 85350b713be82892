// Fetches and draws, on the main thread, what a document's first pass in a Markdown worker asked
// for (markdown-pool.ts), while no worker is held: remote images through the caller's ImageSource,
// SVG images (fetched, or data: URLs) drawn as PNG by its SvgRasterizer, Mermaid diagrams by its
// DiagramDrawer, all under the caller's deadline. The answers go to the document's second pass.
import pLimit from 'p-limit';
import type { FetchedImage } from '../images/remote-image-fetcher.js';
import { decodeDataUrl } from '../images/sniff-image.js';
import type { SvgRasterizer } from '../images/svg-raster.js';
import type { DrawnDiagram } from '../diagrams/diagram-page.js';
import type { RenderLane } from '../render/renderer.js';
import { parallelFetches } from './inline-remote-images.js';
import type { RenderMarkdownOptions } from './render-markdown.js';
import type { DocumentAnswers, DocumentAsks, FetchedOrRefused } from './worker-protocol.js';

/**
 * Keeps an image the server fetched or drew and answers the address its reader loads it from. A
 * preview shown as markup links its images and diagrams so: fifty drawn SVGs inlined as data: URIs made 9 MB of
 * HTML, held the event loop copying and sending it, and went with every keystroke.
 */
export type ImageLinker = (image: FetchedImage) => Promise<string>;

type AnswerOptions = Pick<RenderMarkdownOptions, 'remoteImages' | 'diagrams' | 'beforeImage' | 'signal'> & { svgImages?: SvgRasterizer; linkImages?: ImageLinker };

/**
 * Every answer to `asks`, with the buffers to transfer to the worker. Throws what beforeImage
 * refused with, or a diagram drawer's failure to draw at all (a full queue): the request's answer.
 */
export async function answerAsks(asks: DocumentAsks, options: AnswerOptions, lane: RenderLane): Promise<{ answers: DocumentAnswers; transfer: ArrayBuffer[] }> {
  const { signal } = options;
  /** A failure of the request itself: nothing more is fetched or drawn for it. */
  let refusal: { error: unknown } | undefined;

  const images = new Map<string, Promise<FetchedOrRefused>>();
  const fetchInTurn = pLimit(parallelFetches);
  // Each image shown is charged before it is fetched or drawn (beforeImage), as the worker asked, a
  // source shown twice included; it is fetched once.
  const fetching = asks.images.map((source) =>
    fetchInTurn(async () => {
      if (refusal || signal?.aborted) return;
      try {
        await options.beforeImage?.();
      } catch (error) {
        refusal ??= { error };
        return;
      }
      if (!images.has(source)) images.set(source, fetchImage(options, source, lane));
      await images.get(source);
    }),
  );

  const diagrams = new Map<string, DrawnDiagram>();
  // One at a time: a document's diagrams queue behind one another, not in front of other requests'.
  const drawing = (async () => {
    for (const source of asks.diagrams) {
      if (refusal) return;
      if (diagrams.has(source)) continue;
      try {
        diagrams.set(source, await drawDiagram(options, source));
      } catch (error) {
        refusal ??= { error };
      }
    }
  })();

  await Promise.all([...fetching, drawing]);
  if (refusal) throw refusal.error;
  signal?.throwIfAborted();

  const answers: DocumentAnswers = { images: new Map(), diagrams };
  const transfer: ArrayBuffer[] = [];
  for (const [source, fetched] of images) {
    const answer = await fetched;
    answers.images.set(source, answer);
    if (answer.ok && 'bytes' in answer) transfer.push(answer.bytes.buffer as ArrayBuffer);
  }
  for (const drawn of diagrams.values()) if (drawn.ok && !drawn.link) transfer.push(drawn.png.buffer as ArrayBuffer);
  return { answers, transfer };
}

async function fetchImage({ remoteImages, svgImages, signal, linkImages }: AnswerOptions, source: string, lane: RenderLane): Promise<FetchedOrRefused> {
  try {
    const draw = (svg: Buffer) => {
      if (!svgImages) throw new Error('SVG images are not drawn here');
      return svgImages.rasterize(svg, signal, lane);
    };
    let image: FetchedImage;
    if (source.startsWith('data:')) {
      // The worker found an SVG in it (inline-remote-images.ts).
      image = await draw(decodeDataUrl(source)?.bytes ?? Buffer.alloc(0));
    } else {
      if (!remoteImages) throw new Error('remote images are not fetched here');
      const fetched = await remoteImages.fetch(source, signal);
      image = fetched.mimeType === 'image/svg+xml' ? await draw(fetched.bytes) : fetched;
    }
    const { mimeType, width, height, cssWidth } = image;
    if (linkImages) return { ok: true, mimeType, link: await linkImages(image), byteLength: image.bytes.length, width, height, cssWidth };
    // A copy: the source may keep its buffer (a cache), and the copy's memory moves to the worker.
    return { ok: true, mimeType, bytes: new Uint8Array(image.bytes), width, height, cssWidth };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

async function drawDiagram({ diagrams: drawer, signal, linkImages }: AnswerOptions, source: string): Promise<DrawnDiagram> {
  signal?.throwIfAborted();
  if (!drawer) return { ok: false, message: 'Diagrams are not drawn here.' };
  const drawn = await drawer.draw(source);
  if (!drawn.ok) return drawn;
  if (linkImages) {
    const link = await linkImages({ mimeType: 'image/png', bytes: Buffer.from(drawn.png.buffer, drawn.png.byteOffset, drawn.png.byteLength), width: drawn.width, height: drawn.height });
    return { ...drawn, png: new Uint8Array(0), link };
  }
  // A copy: the drawer may keep its image (a cache), and the copy's memory moves to the worker.
  return { ...drawn, png: new Uint8Array(drawn.png) };
}
