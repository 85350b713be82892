// The grammar patterns the build translates once (src/cards/markdown/regex-translations.ts) are
// the very RegExps Shiki's engine makes at run time, so highlighting with them changes no colour.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { createHighlighter, type BundledLanguage } from 'shiki';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { EmulatedRegExp } from 'oniguruma-to-es';
import { loadRegexTranslations, regexTranslationsContents, translatePattern } from '../src/cards/markdown/regex-translations.js';
import { projectRoot } from '../src/paths.js';

describe('grammar patterns translated at build time', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'regex-translations-')), 'regex-translations.json');
  let patterns: string[];
  let translated: ReturnType<typeof loadRegexTranslations>;
  before(async () => {
    const contents = await regexTranslationsContents();
    fs.writeFileSync(file, contents);
    patterns = Object.keys(JSON.parse(contents.slice(contents.indexOf('\n') + 1)) as object);
    translated = loadRegexTranslations(file);
  });

  it('holds the common languages, each pattern rebuilt exactly as the engine translates it', () => {
    assert.ok(patterns.length > 2000, `${patterns.length} patterns`);
    for (const pattern of patterns) {
      const stored = translated(pattern)!;
      const live = translatePattern(pattern);
      assert.equal(stored.constructor, live.constructor, pattern);
      assert.equal(stored.source, live.source, pattern);
      assert.equal(stored.flags, live.flags, pattern);
      if (live instanceof EmulatedRegExp) assert.deepEqual((stored as EmulatedRegExp).rawOptions, live.rawOptions, pattern);
    }
  });

  it('is ignored when written for other versions, and absent patterns are left to the engine', () => {
    const other = path.join(path.dirname(file), 'other.json');
    const contents = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(other, `{"versions":["shiki@0.0.0"]}${contents.slice(contents.indexOf('\n'))}`);
    assert.equal(loadRegexTranslations(other)(patterns[0]!), undefined);
    assert.equal(loadRegexTranslations(path.join(path.dirname(file), 'missing.json'))(patterns[0]!), undefined);
    assert.equal(translated('(?<=never)a pattern of no grammar'), undefined);
  });

  it('colours real sources exactly as the engine translating at run time does', async () => {
    const themes: Array<'github-light' | 'github-dark'> = ['github-light', 'github-dark'];
    const withTranslations = await createHighlighter({
      themes,
      langs: [],
      engine: createJavaScriptRegexEngine({ regexConstructor: (pattern) => translated(pattern) ?? translatePattern(pattern) }),
    });
    const atRunTime = await createHighlighter({ themes, langs: [], engine: createJavaScriptRegexEngine({ regexConstructor: translatePattern }) });
    const sources: Array<[string, BundledLanguage]> = [
      ['node_modules/p-limit/index.js', 'javascript'],
      ['node_modules/p-limit/index.d.ts', 'typescript'],
      ['node_modules/katex/src/metrics/extract_ttfs.py', 'python'],
      ['node_modules/playwright-core/bin/reinstall_msedge_stable_linux.sh', 'shellscript'],
      ['node_modules/piscina/package.json', 'json'],
      ['README.md', 'markdown'],
      ['node_modules/katex/dist/katex.min.css', 'css'],
    ];
    for (const [relative, lang] of sources) {
      const code = fs.readFileSync(path.join(projectRoot, relative), 'utf8').slice(0, 20_000);
      await Promise.all([withTranslations.loadLanguage(lang), atRunTime.loadLanguage(lang)]);
      for (const theme of themes) {
        // A throw-away highlight first: Shiki may give a language's very first one the wrong palette (code-blocks.ts, primeOnce).
        for (const highlighter of [withTranslations, atRunTime]) highlighter.codeToTokensBase('x', { lang, theme });
        const colours = (highlighter: typeof atRunTime) => highlighter.codeToTokensBase(code, { lang, theme }).map((line) => line.map((token) => `${token.color}:${token.content}`).join(' '));
        assert.deepEqual(colours(withTranslations), colours(atRunTime), `${relative} in ${theme}`);
      }
    }
  });
});
