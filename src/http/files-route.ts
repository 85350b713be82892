// Serves locally stored images at the URL path of their file name (/screenshots/<name>), with a
// long cache lifetime (names are unique and never rewritten) and nosniff. @fastify/static refuses
// any path that would leave the storage directory, but it follows symbolic links: a link placed
// under screenshots/ would serve whatever it points at. The service never writes links there, so
// a path through one is answered 404. The directory itself may be a link (a mounted volume): it is
// resolved once, at start-up. Any origin may read the images (CORS), as they are public. The
// route is declared here (GET; Fastify adds HEAD) rather than by the plugin, so the OpenAPI
// document lists it as one operation.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fs from 'node:fs/promises';
import path from 'node:path';
import { makeDirectory } from '../cards/storage/make-directory.js';

const prefix = '/screenshots/';
const storedName = /^[\w-]+\.[a-z]+$/;

export async function registerLocalFilesRoute(app: FastifyInstance, storageRoot: string): Promise<void> {
  const configured = await makeDirectory('DATA_DIR', path.join(storageRoot, 'screenshots'));
  const root = await fs.realpath(configured);

  /** 404 when any part of the path below the root is a symbolic link. */
  const refuseSymlinks = async (request: FastifyRequest, reply: FastifyReply) => {
    let relative: string;
    try {
      relative = decodeURIComponent((request.url.split('?')[0] ?? '').slice(prefix.length));
    } catch {
      return; // @fastify/static answers a malformed path itself.
    }
    const parts = relative.split('/').filter(Boolean);
    let current = root;
    for (const part of parts) {
      current = path.join(current, part);
      if (!current.startsWith(root + path.sep)) return;
      const stat = await fs.lstat(current).catch(() => undefined);
      if (!stat) return;
      if (stat.isSymbolicLink()) return reply.callNotFound();
    }
  };

  await app.register(async (scope) => {
    scope.addHook('onRequest', refuseSymlinks);
    await scope.register(fastifyStatic, {
      root,
      serve: false,
      index: false,
      list: false,
      dotfiles: 'deny',
      etag: true,
      setHeaders(reply) {
        reply.header('Cache-Control', 'public, max-age=31536000, immutable');
        reply.header('X-Content-Type-Options', 'nosniff');
        // The images are public; any page may read them, as the web page does for its ZIP, PDF and
        // per-image downloads when it was opened at another host name than PUBLIC_BASE_URL's.
        reply.header('Access-Control-Allow-Origin', '*');
      },
    });
    // Stored names are one plain file name (`<ms>_<hex>.<ext>`, `<id>.json`): anything else (a
    // folder, `..`, a dot file) is no stored object, and gets our 404 rather than the file server's
    // terse 403.
    scope.get<{ Params: { '*': string } }>(`${prefix}*`, async (request, reply) =>
      storedName.test(request.params['*']) ? reply.sendFile(request.params['*']) : reply.callNotFound(),
    );
  });
}
