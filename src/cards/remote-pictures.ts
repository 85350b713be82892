// The pictures a request names by address rather than in its Markdown: the front matter's avatar
// and the watermark's logo. Each is fetched under the remote-image rules (REMOTE_IMAGES, the
// allow-list, no private addresses), charged like any remote image, drawn as PNG when it is an
// SVG, and inlined as a data: URI before the cards are drawn. One that cannot be fetched is left
// out (the card is drawn without it) and the result is marked incomplete, so it is not cached.
import { toDataUri, type FetchedImage } from './images/remote-image-fetcher.js';
import type { PipelineParts } from './pipeline.js';
import type { RenderLane } from './render/renderer.js';
import type { CreatorOptions } from './request/schema.js';
import { watermarkLimits, type Watermark } from './request/watermark.js';

export interface PictureFailure {
  src: string;
  reason: string;
}

interface FetchContext {
  signal: AbortSignal;
  lane: RenderLane;
  /** Told before the picture is fetched (a preview's budget); a refusal is the request's answer, not a missing picture. */
  beforeImage?: () => void | Promise<void>;
}

/** The creator options with a remote avatar fetched and inlined; without it when it cannot be. */
export async function withAvatar(parts: PipelineParts, creator: CreatorOptions | undefined, context: FetchContext) {
  const avatar = creator?.avatar;
  if (!creator || !avatar || avatar.startsWith('data:')) return { options: creator, failures: [] };
  const fetched = await fetchPicture(parts, avatar, context);
  if ('failure' in fetched) return { options: { ...creator, avatar: undefined }, failures: [fetched.failure] };
  return { options: { ...creator, avatar: toDataUri(fetched.image) }, failures: [] };
}

/**
 * The watermark with a logo given by address fetched and inlined. Without it when it cannot be
 * fetched or is larger than a logo may be (then the text alone, or no watermark), with a warning
 * for the client: a mark silently missing from every card would go unnoticed until reposted.
 */
export async function withWatermarkImage(parts: PipelineParts, watermark: Watermark | undefined, context: FetchContext) {
  const image = watermark?.image;
  if (!watermark || !image || image.startsWith('data:')) return { watermark, failures: [], warnings: [] };
  const fetched = await fetchPicture(parts, image, context);
  const { imageMaxPixels } = watermarkLimits;
  const tooLarge = (picture: FetchedImage) => picture.width > imageMaxPixels || picture.height > imageMaxPixels;
  if ('image' in fetched && !tooLarge(fetched.image)) return { watermark: { ...watermark, image: toDataUri(fetched.image) }, failures: [], warnings: [] };
  const failure =
    'failure' in fetched
      ? fetched.failure
      : { src: image, reason: `it is ${fetched.image.width}×${fetched.image.height} pixels; at most ${imageMaxPixels}×${imageMaxPixels} are accepted` };
  const { image: _left, ...rest } = watermark;
  const shown = image.length > 80 ? `${image.slice(0, 77)}…` : image;
  return { watermark: rest.text === undefined ? undefined : rest, failures: [failure], warnings: [`watermark.image ${shown} was not drawn: ${failure.reason}.`] };
}

async function fetchPicture(parts: PipelineParts, src: string, { signal, lane, beforeImage }: FetchContext): Promise<{ image: FetchedImage } | { failure: PictureFailure }> {
  if (parts.remoteImages) await beforeImage?.();
  try {
    if (!parts.remoteImages) throw new Error('remote images are off (REMOTE_IMAGES)');
    return { image: await parts.svgImages.rasterizeIfSvg(await parts.remoteImages.fetch(src, signal), signal, lane) };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    return { failure: { src, reason: error instanceof Error ? error.message : String(error) } };
  }
}
