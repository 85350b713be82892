// Writes a request's cards as numbered files (notes-1.png, notes-2.png, …) in card order. Either
// every file is written or none is left behind, as with the service's storage.
import fs from 'node:fs/promises';
import path from 'node:path';
import { extensionOf } from './storage.js';
import type { RenderedImage } from '../render/render-cards.js';

/** Writes the images into `dir` (created if missing) and returns the paths written, in card order. */
export async function writeCardFiles(dir: string, baseName: string, images: RenderedImage[]): Promise<string[]> {
  await fs.mkdir(dir, { recursive: true });
  const files = images.map((image, index) => path.join(dir, `${baseName}-${index + 1}.${extensionOf[image.format]}`));
  try {
    await Promise.all(images.map((image, index) => fs.writeFile(files[index]!, image.data)));
  } catch (error) {
    await Promise.all(files.map((file) => fs.rm(file, { force: true })));
    throw error;
  }
  return files;
}

/** The base of the output names: the input file's name without its extension. */
export function baseNameOf(inputFile: string): string {
  return path.basename(inputFile, path.extname(inputFile)) || 'card';
}
