// The grammar patterns the build translates once (src/cards/markdown/regex-translations.ts) are
// the very RegExps Shiki's engine makes at run time, so highlighting with them changes no colour.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { createHighlighter, type BundledLanguage } from 'shiki';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { EmulatedRegExp } from 'oniguruma-to-es';
import { loadRegexTranslations, patternTranslator, regexTranslationsContents } from '../src/cards/markdown/regex-translations.js';
import { projectRoot } from '../src/paths.js';

describe('grammar patterns translated at build time', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'regex-translations-')), 'regex-translations.json');
  let patterns: string[];
  let translated: Awaited<ReturnType<typeof loadRegexTranslations>>;
  let translatePattern: (pattern: string) => RegExp;
  before(async () => {
    translatePattern = await patternTranslator();
    const contents = await regexTranslationsContents();
    fs.writeFileSync(file, contents);
    patterns = Object.keys(JSON.parse(contents.slice(contents.indexOf('\n') + 1)) as object);
    translated = await loadRegexTranslations(file);
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

  it('is ignored when written for other versions, and absent patterns are left to the engine', async () => {
    const other = path.join(path.dirname(file), 'other.json');
    const contents = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(other, `{"versions":["shiki@0.0.0"]}${contents.slice(contents.indexOf('\n'))}`);
    assert.equal((await loadRegexTranslations(other))(patterns[0]!), undefined);
    assert.equal((await loadRegexTranslations(path.join(path.dirname(file), 'missing.json')))(patterns[0]!), undefined);
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
        // No time limit per line: Shiki leaves the rest of a line uncoloured after 500 ms, which a
        // loaded machine reached on one side only in katex.min.css's single 20,000-character line.
        const colours = (highlighter: typeof atRunTime) => highlighter.codeToTokensBase(code, { lang, theme, tokenizeTimeLimit: 0 }).map((line) => line.map((token) => `${token.color}:${token.content}`).join(' '));
        assert.deepEqual(colours(withTranslations), colours(atRunTime), `${relative} in ${theme}`);
      }
    }
  });

  it('are loaded by a Markdown worker run from the sources, as the scripts and benches run it', () => {
    // Under tsx a worker thread loads .ts modules through require hooks, and a dynamic import of a
    // module of its own failed there: every code block of `npm run corpus` or `bench:profile` failed.
    const script = path.join(path.dirname(file), 'worker-from-sources.mts');
    const fence = '```';
    fs.writeFileSync(
      script,
      [
        `import { MarkdownPool } from ${JSON.stringify(path.join(projectRoot, 'src/cards/markdown/markdown-pool.ts'))};`,
        'const pool = new MarkdownPool({ threads: 1, cpuLimitMs: 30_000, queueMax: 1, previewQueueMax: 1 });',
        `const { html } = await pool.render(${JSON.stringify(`${fence}ts\nconst answer = 42;\n${fence}`)});`,
        'await pool.close();',
        "console.log(html.includes('--shiki-light:') ? 'highlighted' : html);",
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: projectRoot, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.stdout.trim(), 'highlighted', run.stderr);
  });
});
