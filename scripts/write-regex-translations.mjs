// Build step after tsc (`npm run build`): translates the Oniguruma patterns of the common languages'
// grammars into JavaScript RegExps once and writes them into dist/cards/markdown/, which the
// Markdown workers read instead of translating them again (about a second of CPU per worker; see
// src/cards/markdown/regex-translations.ts).
import fs from 'node:fs/promises';

const compiled = new URL('../dist/cards/markdown/regex-translations.js', import.meta.url);
const { regexTranslationsContents, regexTranslationsFile } = await import(compiled.href);
await fs.writeFile(regexTranslationsFile, await regexTranslationsContents());
