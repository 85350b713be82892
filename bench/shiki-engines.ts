// Benchmark: Shiki's three ways of running its TextMate grammars, side by side, as the Markdown
// workers use them (both colour themes per highlight):
//   oniguruma       the Oniguruma regex engine compiled to WebAssembly (Shiki's default)
//   js-runtime      the JavaScript RegExp engine, which transpiles each grammar's patterns on first use
//                   (the service's, with its options: createCodeRegexEngine in code-blocks.ts)
//   js-precompiled  the JavaScript engine with @shikijs/langs-precompiled, grammars already transpiled
// For each: the time to load the highlighter with its first grammar, the first and the warm highlight
// of real sources read from node_modules, and the memory after highlighting every language the
// corpus uses. Then the colours of every token, per engine against Oniguruma, for every code block
// of a bundled language fenced in the Markdown files (READMEs, docs) under node_modules and every sample.
// Each variant runs in a child process of its own, so that none inherits another's memory or caches,
// and the timings are taken in BENCH_REPEATS rounds that alternate the variants (the machine's load
// varies more between minutes than the engines do); the medians of the rounds are reported.
// Run with `node --import tsx bench/shiki-engines.ts`. Prints figures; it asserts nothing.
import { fork } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { HighlighterCore, LanguageRegistration, ThemedToken } from 'shiki';
import { createCodeRegexEngine } from '../src/cards/markdown/code-blocks.js';
import { median } from './lib/stats.js';

const variants = ['oniguruma', 'js-runtime', 'js-precompiled'] as const;
type Variant = (typeof variants)[number];
const themes = { light: 'github-light', dark: 'github-dark' } as const;
/** Not a dependency of the project: measured only when installed (see precompiledInstalled). */
const precompiledGrammars = '@shikijs/langs-precompiled';
const nodeModules = resolve('node_modules');
/** Warm highlights per sample; the median is reported. */
const warmRounds = Number(process.env.BENCH_ROUNDS ?? 20);
/** Code blocks per language compared, so that JavaScript's 3,000 blocks do not dominate the run. */
const blocksPerLanguage = Number(process.env.BENCH_BLOCKS ?? 150);
/** Rounds of timings; the first also compares colours and measures memory. */
const repeats = Number(process.env.BENCH_REPEATS ?? 3);

interface Sample {
  name: string;
  language: string;
  code: string;
  from: string;
}

interface VariantFigures {
  variant: Variant;
  loadMs: number;
  samples: { name: string; lines: number; firstMs: number; warmMs: number }[];
  languagesLoaded: number;
  languagesFailed: { language: string; error: string }[];
  allLanguagesMs: number;
  memory: { before: NodeJS.MemoryUsage; after: NodeJS.MemoryUsage };
  /** Per block key, each line's colour runs: "light/dark×length" joined. */
  colours: Record<string, string[]>;
}

// ---- the corpus, read from node_modules ----

function filesUnder(dir: string, accept: (name: string) => boolean, found: string[] = [], depth = 0): string[] {
  if (depth > 7) return found;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return found;
  }
  for (const name of entries) {
    const path = join(dir, name);
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(path);
    } catch {
      continue;
    }
    if (stats.isDirectory()) filesUnder(path, accept, found, depth + 1);
    else if (accept(name)) found.push(path);
  }
  return found;
}

const firstLines = (text: string, count: number) => text.split('\n').slice(0, count).join('\n');
const relative = (path: string) => path.slice(nodeModules.length + 1);

/** The largest file among the candidates (the "long" sample), or undefined when there is none. */
function largest(paths: string[], maxBytes = 60_000): string | undefined {
  return paths
    .map((path) => ({ path, size: statSync(path).size }))
    .filter(({ size }) => size <= maxBytes)
    .sort((a, b) => b.size - a.size)[0]?.path;
}

/** Fenced code blocks of every Markdown file under node_modules, by the fence's language. */
function markdownFences(markdownFiles: string[]): Map<string, string[]> {
  const byLanguage = new Map<string, string[]>();
  const fence = /^( {0,3})(`{3,}|~{3,})[ \t]*([\w+#.-]+)[^\n]*\n([\s\S]*?)\n {0,3}\2[ \t]*$/gm;
  for (const path of markdownFiles) {
    const text = readFileSync(path, 'utf8');
    for (const match of text.matchAll(fence)) {
      const language = (match[3] ?? '').toLowerCase();
      const code = match[4] ?? '';
      if (!code.trim()) continue;
      const blocks = byLanguage.get(language) ?? [];
      if (!blocks.includes(code)) blocks.push(code);
      byLanguage.set(language, blocks);
    }
  }
  return byLanguage;
}

function samplesFrom(files: string[], fences: Map<string, string[]>): Sample[] {
  const pick = (name: string, language: string, path: string | undefined, lines?: number): Sample[] =>
    path ? [{ name, language, code: lines ? firstLines(readFileSync(path, 'utf8'), lines) : readFileSync(path, 'utf8'), from: relative(path) }] : [];
  const ofExtension = (...extensions: string[]) => files.filter((path) => extensions.some((extension) => path.endsWith(extension)));
  // A module's source and a test file (long string literals, many calls), 200 lines or more each.
  const typescript = (test: boolean) =>
    ofExtension('.ts')
      .filter((path) => !path.endsWith('.d.ts') && /__tests__|\.(test|spec)\.ts$/.test(path) === test)
      .filter((path) => readFileSync(path, 'utf8').split('\n').length >= 200)
      .sort()[0];
  // The longest fenced block of a language when node_modules holds no file of it.
  const longestFence = (name: string, ...languages: string[]): Sample[] => {
    const block = languages.flatMap((language) => fences.get(language) ?? []).sort((a, b) => b.length - a.length)[0];
    return block ? [{ name, language: languages[0] ?? name, code: block, from: `the longest \`\`\`${languages.join('/')} fence in node_modules' Markdown` }] : [];
  };
  const ofLanguage = (name: string, language: string, extensions: string[], fenceLanguages: string[]) => {
    const file = largest(ofExtension(...extensions));
    return file ? pick(name, language, file) : longestFence(name, ...fenceLanguages);
  };
  return [
    ...pick('TypeScript, 200 lines', 'typescript', typescript(false), 200),
    ...pick('TypeScript test, 200 lines', 'typescript', typescript(true), 200),
    ...ofLanguage('Python', 'python', ['.py'], ['python', 'py']),
    ...ofLanguage('Bash', 'bash', ['.sh'], ['bash', 'sh']),
    ...pick('JSON', 'json', largest(ofExtension('package.json'), 12_000)),
    ...ofLanguage('YAML', 'yaml', ['.yml', '.yaml'], ['yaml', 'yml']),
    ...ofLanguage('Go', 'go', ['.go'], ['go', 'golang']),
    ...ofLanguage('Rust', 'rust', ['.rs'], ['rust', 'rs']),
    ...ofLanguage('SQL', 'sql', ['.sql'], ['sql']),
  ];
}

// ---- one variant, in its own process ----

type Shiki = typeof import('shiki');

async function createVariantHighlighter(variant: Variant): Promise<{ shiki: Shiki; highlighter: HighlighterCore; load: (language: string) => Promise<void> }> {
  const shiki = await import('shiki');
  if (variant === 'js-precompiled') {
    const { createHighlighterCore } = await import('shiki/core');
    const { createJavaScriptRawEngine } = await import('shiki/engine/javascript');
    const highlighter = await createHighlighterCore({
      themes: [import('shiki/themes/github-light.mjs'), import('shiki/themes/github-dark.mjs')],
      langs: [],
      engine: createJavaScriptRawEngine(),
    });
    const load = async (language: string) => {
      const info = shiki.bundledLanguagesInfo.find((candidate) => candidate.id === language || candidate.aliases?.includes(language));
      if (!info) throw new Error(`not a bundled language: ${language}`);
      const grammar = (await import(`${precompiledGrammars}/${info.id}`)) as { default: LanguageRegistration[] };
      await highlighter.loadLanguage(grammar.default);
    };
    return { shiki, highlighter, load };
  }
  const engine =
    variant === 'oniguruma'
      ? (await import('shiki/engine/oniguruma')).createOnigurumaEngine(import('shiki/wasm'))
      : await createCodeRegexEngine();
  const highlighter = await shiki.createHighlighter({ themes: Object.values(themes), langs: [], engine });
  return { shiki, highlighter, load: (language) => highlighter.loadLanguage(language as Parameters<typeof highlighter.loadLanguage>[0]) };
}

/** What the workers do per code block: one highlight in both themes. */
const highlight = (highlighter: HighlighterCore, code: string, lang: string) => highlighter.codeToHast(code, { lang, themes, defaultColor: false });

/** Each line as runs of colour ("light/dark×characters"), so that a token split differently but coloured alike is no difference. */
function colourRuns(lines: ThemedToken[][]): string[] {
  return lines.map((tokens) => {
    const runs: string[] = [];
    let last = '';
    let length = 0;
    for (const token of tokens) {
      const style = token.htmlStyle ?? {};
      const colour = `${style['--shiki-light'] ?? ''}/${style['--shiki-dark'] ?? ''}${style['--shiki-light-font-style'] ?? ''}${style['--shiki-dark-font-style'] ?? ''}`;
      if (colour === last) length += token.content.length;
      else {
        if (length) runs.push(`${last}×${length}`);
        last = colour;
        length = token.content.length;
      }
    }
    if (length) runs.push(`${last}×${length}`);
    return runs.join(' ');
  });
}

/**
 * CPU time of the process (user and system) in ms: on a shared, loaded machine the wall time
 * mostly measures the wait for a core.
 */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const time = (task: () => void) => {
  const start = cpuMs();
  task();
  return cpuMs() - start;
};

async function runVariant(variant: Variant, corpusFile: string, outputFile: string, timingOnly: boolean): Promise<void> {
  const { samples, fences } = JSON.parse(readFileSync(corpusFile, 'utf8')) as { samples: Sample[]; fences: [string, string[]][] };
  const collect = () => {
    globalThis.gc?.();
    return process.memoryUsage();
  };
  const before = collect();

  const loadStart = cpuMs();
  const { shiki, highlighter, load } = await createVariantHighlighter(variant);
  await load('typescript');
  const loadMs = cpuMs() - loadStart;

  const figures: VariantFigures = {
    variant,
    loadMs,
    samples: [],
    languagesLoaded: 0,
    languagesFailed: [],
    allLanguagesMs: 0,
    memory: { before, after: before },
    colours: {},
  };
  for (const sample of samples) {
    await load(sample.language);
    // The first highlight in a fresh process is compared too: Shiki 4.6 sometimes colours a
    // language's first highlight differently from the later ones, on either engine.
    let firstTokens: ThemedToken[][] = [];
    const firstMs = time(() => {
      firstTokens = highlighter.codeToTokens(sample.code, { lang: sample.language, themes }).tokens;
    });
    figures.colours[`first highlight of the sample ${sample.name}`] = colourRuns(firstTokens);
    const warm = Array.from({ length: warmRounds }, () => time(() => highlight(highlighter, sample.code, sample.language)));
    figures.samples.push({ name: sample.name, lines: sample.code.split('\n').length, firstMs, warmMs: median(warm) });
  }
  if (timingOnly) return writeFileSync(outputFile, JSON.stringify(figures));

  const allStart = cpuMs();
  const blocks: [string, string, string][] = [
    ...samples.map((sample): [string, string, string] => [`sample ${sample.name}`, sample.language, sample.code]),
    ...fences.flatMap(([language, codes]) =>
      Object.hasOwn(shiki.bundledLanguages, language)
        ? codes.slice(0, blocksPerLanguage).map((code, index): [string, string, string] => [`\`\`\`${language} #${index + 1}`, language, code])
        : [],
    ),
  ];
  const loaded = new Set<string>();
  for (const [key, language, code] of blocks) {
    if (!loaded.has(language)) {
      loaded.add(language);
      try {
        await load(language);
        // The service's throw-away first highlight per language (code-blocks.ts primeOnce).
        highlight(highlighter, 'x', language);
        figures.languagesLoaded++;
      } catch (error) {
        figures.languagesFailed.push({ language, error: String(error).slice(0, 200) });
      }
    }
    if (figures.languagesFailed.some((failed) => failed.language === language)) continue;
    try {
      figures.colours[key] = colourRuns(highlighter.codeToTokens(code, { lang: language, themes }).tokens);
    } catch (error) {
      figures.colours[key] = [`failed: ${String(error).slice(0, 200)}`];
    }
  }
  figures.allLanguagesMs = cpuMs() - allStart;
  figures.memory.after = collect();
  writeFileSync(outputFile, JSON.stringify(figures));
}

// ---- the parent: the corpus, the children, the report ----

function runChild(variant: Variant, corpusFile: string, timingOnly: boolean): Promise<VariantFigures> {
  const outputFile = join(tmpdir(), `shiki-engines-${process.pid}-${variant}.json`);
  return new Promise((done, fail) => {
    const child = fork(process.argv[1] ?? '', ['--variant', variant, corpusFile, outputFile, ...(timingOnly ? ['timing-only'] : [])], {
      execArgv: [...process.execArgv, '--expose-gc'],
      stdio: 'inherit',
    });
    child.on('exit', (code) => {
      if (code !== 0) return fail(new Error(`${variant} exited with ${code}`));
      done(JSON.parse(readFileSync(outputFile, 'utf8')) as VariantFigures);
    });
  });
}

/**
 * The precompiled grammars are not a dependency (see docs/performance.md, Memory); to measure them,
 * `npm install --no-save @shikijs/langs-precompiled` first (its newest release may trail shiki's).
 */
function precompiledInstalled(): boolean {
  try {
    import.meta.resolve(`${precompiledGrammars}/typescript`);
    return true;
  } catch {
    console.log('@shikijs/langs-precompiled is not installed: js-precompiled not measured');
    return false;
  }
}

/** The first round's figures with each timing replaced by its median over the rounds. */
function medianOfRounds(first: VariantFigures, rounds: VariantFigures[]): VariantFigures {
  return {
    ...first,
    loadMs: median(rounds.map((round) => round.loadMs)),
    samples: first.samples.map((sample, index) => ({
      ...sample,
      firstMs: median(rounds.map((round) => round.samples[index]?.firstMs ?? sample.firstMs)),
      warmMs: median(rounds.map((round) => round.samples[index]?.warmMs ?? sample.warmMs)),
    })),
  };
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`;

function printFigures(all: VariantFigures[]): void {
  const [base] = all;
  if (!base) return;
  console.log('\nall figures are CPU time of the process (user + system), medians of the rounds');
  console.log(`\nload the highlighter and the TypeScript grammar (cold process):`);
  for (const figures of all) console.log(`  ${figures.variant.padEnd(15)} ${ms(figures.loadMs).padStart(9)}  ${ratio(figures.loadMs, base.loadMs)}`);

  console.log(`\nhighlight, both themes: first (compiles the patterns it meets) / warm median of ${warmRounds}; ratio of warm to Oniguruma's`);
  for (const sample of base.samples) {
    console.log(`  ${sample.name} (${sample.lines} lines)`);
    for (const figures of all) {
      const own = figures.samples.find((candidate) => candidate.name === sample.name);
      if (own) console.log(`    ${figures.variant.padEnd(15)} ${ms(own.firstMs).padStart(9)} / ${ms(own.warmMs).padStart(9)}  ${ratio(own.warmMs, sample.warmMs)}`);
    }
  }
  const warmTotal = (figures: VariantFigures) => figures.samples.reduce((sum, sample) => sum + sample.warmMs, 0);
  console.log(`  all samples, warm, summed`);
  for (const figures of all) console.log(`    ${figures.variant.padEnd(15)} ${ms(warmTotal(figures)).padStart(9)}  ${ratio(warmTotal(figures), warmTotal(base))}`);

  console.log(`\nloading and highlighting every corpus language, then memory after a full collection (before Shiki → after):`);
  for (const figures of all) {
    const { before, after } = figures.memory;
    const kinds = (['heapUsed', 'external', 'arrayBuffers', 'rss'] as const).map((kind) => `${kind} ${mb(before[kind])} → ${mb(after[kind])}`);
    console.log(`  ${figures.variant.padEnd(15)} ${figures.languagesLoaded} languages in ${ms(figures.allLanguagesMs)}; ${kinds.join(', ')}`);
    for (const failed of figures.languagesFailed) console.log(`    failed to load ${failed.language}: ${failed.error}`);
  }
}

function printDifferences(all: VariantFigures[]): void {
  const [base, ...others] = all;
  if (!base) return;
  for (const figures of others) {
    const differing: string[] = [];
    const byLanguage = new Map<string, { blocks: number; differing: number }>();
    for (const [key, lines] of Object.entries(base.colours)) {
      const language = key.includes('sample ') ? key : key.replace(/ #\d+$/, '');
      const counts = byLanguage.get(language) ?? { blocks: 0, differing: 0 };
      counts.blocks++;
      const own = figures.colours[key];
      const line = own ? lines.findIndex((runs, index) => runs !== own[index]) : 0;
      if (line >= 0 || (own && own.length !== lines.length)) {
        counts.differing++;
        differing.push(`    ${key}, line ${line + 1}:\n      oniguruma: ${lines[line]?.slice(0, 300)}\n      ${figures.variant}: ${own?.[line]?.slice(0, 300)}`);
      }
      byLanguage.set(language, counts);
    }
    const blockCount = Object.keys(base.colours).length;
    console.log(`\ntoken colours, ${figures.variant} against oniguruma: ${differing.length} of ${blockCount} blocks differ`);
    for (const [language, counts] of byLanguage) console.log(`  ${language}: ${counts.blocks} blocks, ${counts.differing} differ`);
    if (differing.length) console.log(`  first differing line of each (at most 40):\n${differing.slice(0, 40).join('\n')}`);
  }
}

async function main(): Promise<void> {
  const [flag, variant, childCorpus, childOutput, timingOnly] = process.argv.slice(2);
  if (flag === '--variant' && variant && childCorpus && childOutput) return runVariant(variant as Variant, childCorpus, childOutput, timingOnly === 'timing-only');

  const files = filesUnder(nodeModules, (name) => /\.(ts|py|sh|json|ya?ml|go|rs|sql|md)$/.test(name));
  const fences = markdownFences(files.filter((path) => path.endsWith('.md')));
  const samples = samplesFrom(files, fences);
  console.log('samples:');
  for (const sample of samples) console.log(`  ${sample.name}: ${sample.code.split('\n').length} lines from ${sample.from}`);
  const shown = [...fences].sort((a, b) => b[1].length - a[1].length).map(([language, codes]) => `${language} ${codes.length}`);
  const missing = ['Go', 'Rust', 'SQL'].filter((name) => !samples.some((sample) => sample.name === name));
  if (missing.length) console.log(`  (no ${missing.join(', ')} source or fence under node_modules: not measured)`);
  console.log(`Markdown fences under node_modules by language (distinct blocks): ${shown.join(', ')}`);
  const corpusFile = join(tmpdir(), `shiki-engines-${process.pid}-corpus.json`);
  writeFileSync(corpusFile, JSON.stringify({ samples, fences: [...fences] }));

  const chosen = ((process.env.BENCH_VARIANTS?.split(',') as Variant[] | undefined) ?? [...variants]).filter(
    (variant) => variant !== 'js-precompiled' || precompiledInstalled(),
  );
  console.log(`Node ${process.version}; ${repeats} rounds of timings, the variants alternated`);
  const rounds: VariantFigures[][] = [];
  for (let round = 0; round < repeats; round++) {
    const figures: VariantFigures[] = [];
    for (const variant of chosen) figures.push(await runChild(variant, corpusFile, round > 0));
    rounds.push(figures);
  }
  const all = rounds[0] ?? [];
  printFigures(all.map((first, index) => medianOfRounds(first, rounds.map((round) => round[index] ?? first))));
  printDifferences(all);
}

await main();
