// The request of a generate call, saved beside its images so the editor can open it again
// (the answer's previewUrl, as MD2Card's clients expect one). Same store, same `screenshots/`
// prefix as the images, so a bucket lifecycle rule that expires the images expires it too.
// Its name is as unguessable as an image's: the id in the URL is the only way to it.
import { randomBytes } from 'node:crypto';
import type { Storage } from './storage.js';

/** `<ms since epoch>_<96 random bits>`, like an image name without its extension. */
const idPattern = /^\d{13}_[0-9a-f]{24}$/;

export interface SavedRequestFile {
  id: string;
  fileName: string;
  data: Buffer;
  contentType: string;
}

export const savedRequestKey = (id: string) => `screenshots/${id}.json`;

/** The file that saves `request` (a normalized request, plain JSON). */
export function savedRequestFile(request: object): SavedRequestFile {
  const id = `${Date.now()}_${randomBytes(12).toString('hex')}`;
  return { id, fileName: savedRequestKey(id), data: Buffer.from(JSON.stringify(request)), contentType: 'application/json' };
}

/** The saved request of `id`, or undefined when the id is malformed or nothing is stored under it. */
export async function loadSavedRequest(storage: Storage, id: string): Promise<Record<string, unknown> | undefined> {
  if (!idPattern.test(id)) return undefined;
  const data = await storage.get(savedRequestKey(id));
  if (!data) return undefined;
  const parsed: unknown = JSON.parse(data.toString('utf8'));
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}
