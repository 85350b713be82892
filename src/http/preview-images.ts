// The images of live previews, kept a short while and served by address (GET
// /api/preview/images/:id) instead of inlined in the preview's answer. A preview of fifty drawn
// SVGs inlined as data: URIs was 9 MB of JSON: copying, encoding and sending it held the event
// loop (and /health) for a quarter of a second, on every keystroke. By address, the answer is a few
// KB, each image is sent on its own, and the browser keeps what it has already loaded (an image's
// id is its content's hash, so the next keystroke's preview names the same address).
//
// Each replica keeps the images it made in memory; with REDIS_URL they are also written to Redis
// for the same time, so the web page's next request may reach any replica. Redis is a help here
// as everywhere: when it is down, a replica serves what it made itself.
import type { FastifyInstance } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { ImageLinker } from '../cards/index.js';
import { imageId } from '../cards/render/page-images.js';
import type { SharedRedis } from '../shared-state/redis.js';
import { HttpError } from './http-errors.js';

/** How long an image of a preview can be loaded after the preview was answered. */
export const previewImageTtlSeconds = 600;
/** Bytes of preview images one replica keeps at most; the oldest go first. */
export const previewImagesMaxBytes = 128 * 1024 * 1024;

export const previewImagesPath = '/api/preview/images/';
const idPattern = '^[0-9a-f]{40}$';
const redisKey = (id: string) => `cardwright:preview-image:${id}`;

interface KeptImage {
  mimeType: string;
  bytes: Buffer;
}

export const previewImageGone = (id: string) =>
  new HttpError('not_found', `No preview image "${id}": preview images are kept for ${previewImageTtlSeconds / 60} minutes after their preview; preview again.`);

export class PreviewImages {
  private readonly kept = new LRUCache<string, KeptImage>({
    maxSize: previewImagesMaxBytes,
    sizeCalculation: (image) => image.bytes.length + 64,
    ttl: previewImageTtlSeconds * 1000,
  });

  constructor(private readonly redis?: SharedRedis) {}

  /**
   * Keeps an image and answers its address (a path on this service). An image kept already (the
   * same in the previous keystroke's preview) is kept for the full time again from now.
   */
  readonly link: ImageLinker = async ({ mimeType, bytes }) => {
    const id = imageId(bytes);
    const known = this.kept.has(id);
    this.kept.set(id, { mimeType, bytes });
    if (this.redis) {
      const refreshed = known && (await this.redis.attempt((client) => client.expire(redisKey(id), previewImageTtlSeconds))) === 1;
      // The type first, then the bytes: one value, one round trip.
      if (!refreshed) await this.redis.attempt((client) => client.set(redisKey(id), Buffer.concat([Buffer.from(`${mimeType}\n`), bytes]), 'EX', previewImageTtlSeconds));
    }
    return `${previewImagesPath}${id}`;
  };

  async get(id: string): Promise<KeptImage | undefined> {
    const kept = this.kept.get(id);
    if (kept) return kept;
    const stored = await this.redis?.attempt((client) => client.getBuffer(redisKey(id)));
    if (!stored) return undefined;
    const end = stored.indexOf(10);
    return { mimeType: stored.subarray(0, end).toString('utf8'), bytes: stored.subarray(end + 1) };
  }
}

export function registerPreviewImagesRoute(app: FastifyInstance, images: PreviewImages): void {
  app.get<{ Params: { id: string } }>(
    `${previewImagesPath}:id`,
    { schema: { params: { type: 'object', properties: { id: { type: 'string', pattern: idPattern } }, required: ['id'] } } },
    async (request, reply) => {
      const image = await images.get(request.params.id);
      if (!image) throw previewImageGone(request.params.id);
      // The address names the content: it never changes.
      reply.header('Cache-Control', `private, max-age=${previewImageTtlSeconds}, immutable`);
      return reply.type(image.mimeType).send(image.bytes);
    },
  );
}
