// Renders a document through the running service and returns the first card as decoded pixels,
// saving it under $SAVE_PNGS (when set) so a person can look at what the tests looked at.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { decodePng, download, type DecodedPng } from './images.js';
import type { RunningService } from './service.js';

export async function renderCard(service: RunningService, body: Record<string, unknown>, name: string): Promise<DecodedPng> {
  const { status, json } = await service.generate(body);
  assert.equal(status, 200, JSON.stringify(json));
  const { bytes } = await download(json.images[0].url);
  if (process.env.SAVE_PNGS) {
    fs.mkdirSync(process.env.SAVE_PNGS, { recursive: true });
    fs.writeFileSync(path.join(process.env.SAVE_PNGS, `${name}.png`), bytes);
  }
  return await decodePng(bytes);
}

/** Pixels for which `test(r, g, b)` holds. */
export function countWhere(png: DecodedPng, test: (r: number, g: number, b: number) => boolean): number {
  let count = 0;
  for (let i = 0; i < png.data.length; i += 4) if (test(png.data[i]!, png.data[i + 1]!, png.data[i + 2]!)) count++;
  return count;
}
