// Build step after tsc (`npm run build`): writes the bundled fonts' @font-face rules into
// dist/cards/themes/font-faces.css, next to the compiled fonts.js that reads it at start, so the
// service does not rewrite some 2,800 faces on every start (see src/cards/themes/fonts.ts).
import fs from 'node:fs/promises';

const compiled = new URL('../dist/cards/themes/fonts.js', import.meta.url);
const { prebuiltFontFaces } = await import(compiled.href);
await fs.writeFile(prebuiltFontFaces.file, prebuiltFontFaces.contents());
