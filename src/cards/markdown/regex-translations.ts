// Shiki's TextMate grammars are written for the Oniguruma regex engine; its JavaScript engine
// translates each pattern into a JavaScript RegExp when a grammar first uses it (oniguruma-to-es),
// about a millisecond per pattern. Loading the common languages meant some thousand translations,
// a second of CPU in every Markdown worker at start and again in every process that highlights.
//
// The build (scripts/write-regex-translations.mjs) translates every pattern of the common
// languages' grammars once, with the same function and options the engine uses at run time, and
// writes the results into dist/; the engine's regexConstructor (code-blocks.ts) rebuilds a RegExp
// from that file in microseconds, and translates whatever the file does not hold as before (other
// languages, and the end patterns Shiki fills with a captured text, such as a heredoc's name).
// Unlike Shiki's own precompiled grammars, this changes no colour: each RegExp is the one the
// engine would have made (test/regex-translations.test.ts compares them).
//
// The regex packages are loaded on first use, so a Markdown worker whose documents hold no code
// never loads them (this module itself is imported with the code-block step).
import fs from 'node:fs';
import path from 'node:path';
import { nodeModulesDir, projectRoot } from '../../paths.js';

let packages: Promise<[typeof import('shiki/engine/javascript'), typeof import('oniguruma-to-es')]> | undefined;
const regexPackages = () => (packages ??= Promise.all([import('shiki/engine/javascript'), import('oniguruma-to-es')]));

/**
 * The RegExp flavour the grammars are translated for: ES2024 on every Node version. Shiki's own
 * default picks ES2025 where Node has it (24: native pattern modifiers), and there one CSS block of
 * the corpus bench/shiki-engines.ts checks lost two font names' colour; for ES2024 every block
 * matched Oniguruma on Node 20 and 24.
 */
const regexTarget = 'ES2024';

/** The engine's translation of an Oniguruma pattern (it throws for one it cannot run). */
export async function patternTranslator(): Promise<(pattern: string) => RegExp> {
  const [{ defaultJavaScriptRegexConstructor }] = await regexPackages();
  return (pattern) => defaultJavaScriptRegexConstructor(pattern, { target: regexTarget });
}

/**
 * Languages whose patterns the build translates: the ones the workers warm up (worker-protocol.ts)
 * and the others cards show most, with every grammar they embed.
 */
const translatedLanguages = [
  'typescript', 'tsx', 'javascript', 'jsx', 'python', 'shellscript', 'json', 'css', 'html', 'markdown', 'yaml', 'toml', 'xml',
  'java', 'kotlin', 'go', 'rust', 'c', 'cpp', 'csharp', 'php', 'ruby', 'swift', 'sql', 'diff', 'docker',
];

/** A translation as stored: the RegExp's source and flags, and an EmulatedRegExp's options. */
type StoredTranslation = [source: string, flags: string] | [source: string, flags: string, options: object];

/** The versions and choices a stored translation depends on: a file with another header is ignored. */
function header(): string {
  const versions = ['shiki', 'oniguruma-to-es'].map((pkg) => {
    const { version } = JSON.parse(fs.readFileSync(path.join(nodeModulesDir, pkg, 'package.json'), 'utf8')) as { version: string };
    return `${pkg}@${version}`;
  });
  return JSON.stringify({ versions, regexTarget, translatedLanguages });
}

/** Where the build writes the translations: dist/cards/markdown/, beside this module's compiled copy. */
export const regexTranslationsFile = path.join(projectRoot, 'dist', 'cards', 'markdown', 'regex-translations.json');

/** Every pattern of the translated languages' grammars with its translation; a header line first. */
export async function regexTranslationsContents(): Promise<string> {
  const [, { EmulatedRegExp }] = await regexPackages();
  const translatePattern = await patternTranslator();
  const stored = (regex: RegExp): StoredTranslation => (regex instanceof EmulatedRegExp ? [regex.source, regex.flags, regex.rawOptions] : [regex.source, regex.flags]);
  const translations: Record<string, StoredTranslation> = {};
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    for (const key of ['match', 'begin', 'end', 'while']) {
      const pattern = (node as Record<string, unknown>)[key];
      if (typeof pattern !== 'string' || Object.hasOwn(translations, pattern)) continue;
      try {
        translations[pattern] = stored(translatePattern(pattern));
      } catch {
        // Not translatable: left to the engine, which reports it as it does today.
      }
    }
    for (const value of Object.values(node)) visit(value);
  };
  for (const language of translatedLanguages) {
    const grammars = (await import(`shiki/langs/${language}.mjs`)) as { default: unknown[] };
    visit(grammars.default);
  }
  return `${header()}\n${JSON.stringify(translations)}`;
}

/**
 * The build's translations, looked up by pattern; none when the file is missing (sources not
 * built yet) or was written for other versions, so every pattern is then translated at run time.
 */
export async function loadRegexTranslations(file = regexTranslationsFile): Promise<(pattern: string) => RegExp | undefined> {
  const [, { EmulatedRegExp }] = await regexPackages();
  const revived = ([source, flags, options]: StoredTranslation): RegExp => (options ? new EmulatedRegExp(source, flags, options) : new RegExp(source, flags));
  let translations: Record<string, StoredTranslation> = {};
  try {
    const text = fs.readFileSync(file, 'utf8');
    const newline = text.indexOf('\n');
    if (text.slice(0, newline) === header()) translations = JSON.parse(text.slice(newline + 1)) as Record<string, StoredTranslation>;
  } catch {
    // No file: translated at run time.
  }
  return (pattern) => (Object.hasOwn(translations, pattern) ? revived(translations[pattern]!) : undefined);
}
