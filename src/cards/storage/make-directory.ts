// Creates an output folder one level at a time, with a walk bounded by the path's own depth.
// `fs.mkdir(dir, { recursive: true })` is not used because on Linux it never returns for a path
// under /proc (the kernel answers ENOENT for a name it will not create, and Node retries the parent
// for ever), which hung `render -o`, the MCP server's outputDir and DATA_DIR at start-up. Paths on
// the kernel's pseudo-filesystems are refused up front with a message that says what to give.
import fs from 'node:fs/promises';
import path from 'node:path';
import { invalidRequest } from '../errors.js';

const pseudoFilesystems = ['/proc', '/sys', '/dev'];

/** The pseudo-filesystem `dir` lies on, if any (after resolving it against the working folder). */
export function pseudoFilesystemOf(dir: string): string | undefined {
  const resolved = path.resolve(dir);
  return pseudoFilesystems.find((root) => resolved === root || resolved.startsWith(`${root}/`));
}

/** Why a folder setting cannot hold files, in words naming the setting; undefined when it can. */
export function folderProblem(name: string, dir: string): string | undefined {
  const pseudo = pseudoFilesystemOf(dir);
  return pseudo ? `${name} is ${dir}, on the kernel's ${pseudo} pseudo-filesystem, where nothing can be stored: choose a path outside ${pseudo}.` : undefined;
}

/**
 * Makes sure `dir` is a folder, creating it and its missing parents. `name` is what the user called
 * it (e.g. "outputDir", "--out"); every refusal is a CardError of kind invalid_request naming it.
 */
export async function makeDirectory(name: string, dir: string): Promise<string> {
  const resolved = path.resolve(dir);
  for (const part of await missingParts(name, dir)) {
    await fs.mkdir(part).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return;
      throw invalidRequest(`${name} ${dir} cannot be created: ${part} (${error.code ?? error.message}).`);
    });
  }
  return resolved;
}

/**
 * Refuses, as makeDirectory would, a `dir` that cannot be a folder (a pseudo-filesystem, a file on
 * the way), creating nothing: a command checks its output folder before it spends a render on it.
 */
export async function checkDirectory(name: string, dir: string): Promise<void> {
  await missingParts(name, dir);
}

/** The parts of `dir` that do not exist yet, outermost first; a refusal when it cannot be a folder. */
async function missingParts(name: string, dir: string): Promise<string[]> {
  const resolved = path.resolve(dir);
  const problem = folderProblem(name, dir);
  if (problem) throw invalidRequest(problem);
  // Up to the nearest part that exists: at most one step per path segment.
  const missing: string[] = [];
  let existing = resolved;
  for (;;) {
    const stat = await fs.stat(existing).catch((error: NodeJS.ErrnoException) => {
      // ENOTDIR: a part above is a file, which the walk reaches next and names.
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw invalidRequest(`${name} ${dir} cannot be used: ${existing} cannot be read (${error.code ?? error.message}).`);
    });
    if (stat) {
      if (!stat.isDirectory()) {
        throw invalidRequest(`${name} ${dir} is not a folder: ${existing} is a file. Give a folder (it is created if missing).`);
      }
      break;
    }
    const parent = path.dirname(existing);
    if (parent === existing) break;
    missing.unshift(existing);
    existing = parent;
  }
  return missing;
}
