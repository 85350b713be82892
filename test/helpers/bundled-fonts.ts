// The bundled fonts as the render pages get them, for checks that tell them from the host's fonts.
import { fontFaceCss } from '../../src/cards/themes/fonts.js';

/** Family names of every bundled face: those the @font-face rules of the render pages declare. */
export function bundledFamilies(): string[] {
  const families = new Set<string>();
  for (const match of fontFaceCss().matchAll(/font-family:\s*['"]?([^'";]+?)['"]?\s*;/g)) families.add(match[1]!);
  return [...families];
}
