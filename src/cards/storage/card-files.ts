// Writes a request's cards as numbered files (notes-1.png, notes-2.png, …) in card order. Either
// every file is written or none is left behind, as with the service's storage. Numbered files of
// the same name from an earlier, longer result would read as part of this one, so they are either
// removed or the write is refused naming them, as the caller chooses.
import fs from 'node:fs/promises';
import path from 'node:path';
import { invalidRequest } from '../errors.js';
import { makeDirectory } from './make-directory.js';
import { extensionOf } from './storage.js';
import type { RenderedImage } from '../render/render-cards.js';

export interface CardFilesOptions {
  /** What the user called the folder in messages ("--out", "outputDir"). */
  folderName: string;
  /** Numbered files of this name that this result does not write (an earlier result had more cards, or another format): removed, or a refusal naming them. */
  staleFiles: 'remove' | 'refuse';
  /** The words that tell the user how to allow removing them, for 'refuse'. */
  removeHint?: string;
}

/** Writes the images into `dir` (created if missing) and returns the paths written, in card order. */
export async function writeCardFiles(dir: string, baseName: string, images: RenderedImage[], options: CardFilesOptions): Promise<string[]> {
  await makeDirectory(options.folderName, dir);
  const files = images.map((image, index) => path.join(dir, `${baseName}-${index + 1}.${extensionOf[image.format]}`));
  const stale = await staleCardFiles(dir, baseName, files);
  if (stale.length > 0 && options.staleFiles === 'refuse') {
    throw invalidRequest(
      `${dir} holds ${stale.map((file) => path.basename(file)).join(', ')} from an earlier result, which would read as part of this one; ${options.removeHint ?? 'remove them'}, or write to another folder or name.`,
    );
  }
  try {
    await Promise.all(images.map((image, index) => fs.writeFile(files[index]!, image.data)));
  } catch (error) {
    await Promise.all(files.map((file) => fs.rm(file, { force: true })));
    throw error;
  }
  await Promise.all(stale.map((file) => fs.rm(file, { force: true })));
  return files;
}

/** Files `<baseName>-<n>.<image extension>` in `folder` that this result does not write, in number order. */
async function staleCardFiles(folder: string, baseName: string, files: string[]): Promise<string[]> {
  const written = new Set(files.map((file) => path.basename(file)));
  const extensions = new Set<string>(Object.values(extensionOf));
  const prefix = `${baseName}-`;
  const numbered = (await fs.readdir(folder)).flatMap((name) => {
    if (!name.startsWith(prefix)) return [];
    const [number, extension, ...rest] = name.slice(prefix.length).split('.');
    if (rest.length > 0 || !extension || !extensions.has(extension) || !/^[1-9]\d*$/.test(number ?? '')) return [];
    return written.has(name) ? [] : [{ name, number: Number(number) }];
  });
  return numbered.sort((a, b) => a.number - b.number).map(({ name }) => path.join(folder, name));
}

/** The base of the output names: the input file's name without its extension. */
export function baseNameOf(inputFile: string): string {
  return path.basename(inputFile, path.extname(inputFile)) || 'card';
}
