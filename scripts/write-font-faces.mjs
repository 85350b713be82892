// Build step after tsc (`npm run build`): writes the bundled fonts' faces (their @font-face rules
// and the code points each claims) into dist/cards/themes/font-faces.json, which the service reads
// at start instead of building them again (about a second of CPU; see src/cards/themes/fonts.ts).
import fs from 'node:fs/promises';

const compiled = new URL('../dist/cards/themes/fonts.js', import.meta.url);
const { prebuiltFontFaces } = await import(compiled.href);
await fs.writeFile(prebuiltFontFaces.file, prebuiltFontFaces.contents());
