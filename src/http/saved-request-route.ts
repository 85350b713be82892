// GET /api/requests/:id: a generate request saved beside its images, for the editor page to open
// (the answer's previewUrl is `/?edit=<id>`). No key is needed, as for the images: the id is
// unguessable (96 random bits) and reading it shows only what that request's images already show.
import type { FastifyInstance } from 'fastify';
import { loadSavedRequest } from '../cards/storage/saved-request.js';
import type { Storage } from '../cards/storage/storage.js';
import { HttpError } from './http-errors.js';

/** The page that opens a saved request: the editor, with the request's settings and Markdown. */
export const editorUrlOf = (publicBaseUrl: string, savedRequestId: string) => `${publicBaseUrl}/?edit=${savedRequestId}`;

export const noSavedRequest = (id: string) => new HttpError('not_found', `No saved request "${id}": it never existed or has expired with its images.`);

export function registerSavedRequestRoute(app: FastifyInstance, storage: Storage): void {
  app.get<{ Params: { id: string } }>('/api/requests/:id', async (request, reply) => {
    const saved = await loadSavedRequest(storage, request.params.id);
    if (!saved) throw noSavedRequest(request.params.id);
    reply.header('Cache-Control', 'private, max-age=31536000, immutable');
    return saved;
  });
}
