// Serves locally stored images at the URL path of their file name (/screenshots/<name>), with a
// long cache lifetime (names are unique and never rewritten) and nosniff. @fastify/static refuses
// any path that would leave the storage directory.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import path from 'node:path';

export async function registerLocalFilesRoute(app: FastifyInstance, storageRoot: string): Promise<void> {
  const root = path.join(storageRoot, 'screenshots');
  await import('node:fs/promises').then((fs) => fs.mkdir(root, { recursive: true }));
  await app.register(fastifyStatic, {
    root,
    prefix: '/screenshots/',
    decorateReply: false,
    index: false,
    list: false,
    dotfiles: 'deny',
    etag: true,
    setHeaders(reply) {
      reply.header('Cache-Control', 'public, max-age=31536000, immutable');
      reply.header('X-Content-Type-Options', 'nosniff');
    },
  });
}
