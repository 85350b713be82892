// Documents the benchmarks render. Each takes a variant number that changes a little text, so
// the render cache never answers a measured request unless the benchmark means it to.
import fs from 'node:fs';

export function defaultCard(variant: number): { markdown: string } {
  return { markdown: `# Hello, cardwright ${variant}` };
}

const sentences = [
  'Markdown keeps the writer on the words while the theme takes care of the look.',
  '好的排版让读者一眼看到重点，卡片之间的节奏也同样重要。',
  'Every card in a carousel has the same size, so the feed looks calm and deliberate.',
  'A heading should never be stranded at the bottom of a card, away from its text.',
  '代码、表格和引用都应该在合适的位置断开，而不是被拦腰截断。',
  'Short paragraphs read better on a phone than long walls of text.',
];

/** About `words` words of mixed prose, lists, quotes and code (and tables, if asked), in sections. */
export function longDocument(words: number, variant: number, withTables = false): string {
  const parts: string[] = [`# Field notes ${variant}`];
  let count = 0;
  for (let section = 1; count < words; section++) {
    parts.push(`## Section ${section}`);
    for (let p = 0; p < 3 && count < words; p++) {
      const paragraph = Array.from({ length: 4 }, (_, i) => sentences[(section + p + i) % sentences.length]).join(' ');
      parts.push(paragraph);
      count += paragraph.split(/\s+/).length;
    }
    if (section % 3 === 0) parts.push('- first point\n- second point\n- third point');
    if (section % 4 === 0) parts.push('> A quotation that deserves its own frame.');
    if (section % 5 === 0) parts.push('```ts\nconst cards = await generate({ splitMode: "autoSplit" });\nconsole.log(cards.length);\n```');
    if (withTables && section % 6 === 0) parts.push('| step | 说明 | ms |\n|---|---|---:|\n| parse | 解析 | 3 |\n| layout | 排版 | 17 |\n| capture | 截图 | 24 |');
  }
  return parts.join('\n\n');
}

/** One document of the representative set: what a user really sends, named for the report. */
export interface RepresentativeDocument {
  name: string;
  /** What it renders, for the printed table. */
  renders: string;
  markdown(variant: number): string;
}

const gallerySample = fs.readFileSync(new URL('../../docs/gallery-sample.md', import.meta.url), 'utf8');

/**
 * The content-rich cards the bench renders at the default size (440 px wide at 2×, noSplit, so a
 * card is as tall as its content): each has a variant line so the render cache never answers.
 */
export const representativeSet: RepresentativeDocument[] = [
  {
    name: 'gallery sample',
    renders: 'docs/gallery-sample.md: headings, lists, a task list, a quote, JS code, a table, a footnote, CJK and emoji',
    markdown: (variant) => `${gallerySample}\n\nVariant ${variant}`,
  },
  {
    name: 'code-heavy card',
    renders: 'a title, a sentence and two highlighted blocks (24 lines of TypeScript with line numbers, 8 of Python)',
    markdown: (variant) =>
      [
        `## Retry with backoff ${variant}`,
        'A small helper that retries a promise-returning call, with the same thing in Python.',
        '```ts showLineNumbers {3-4}',
        'export async function retry<T>(call: () => Promise<T>, attempts = 3): Promise<T> {',
        '  let delay = 100;',
        '  for (let attempt = 1; ; attempt++) {',
        '    try {',
        '      return await call();',
        '    } catch (error) {',
        '      if (attempt >= attempts) throw error;',
        '      await new Promise((resolve) => setTimeout(resolve, delay));',
        '      delay *= 2;',
        '    }',
        '  }',
        '}',
        '',
        'interface Card { title: string; body: string; tags: string[] }',
        'const cards: Card[] = await retry(() => fetch("/api/cards").then((r) => r.json()));',
        'for (const card of cards) {',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a line of the sample card's TypeScript, which uses a template literal
        '  console.log(`${card.title}: ${card.tags.join(", ")}`);',
        '}',
        'const total = cards.reduce((sum, card) => sum + card.body.length, 0);',
        'console.log({ total, average: total / cards.length });',
        'export default retry;',
        '// done',
        '```',
        '```python',
        'import time',
        'def retry(call, attempts=3):',
        '    delay = 0.1',
        '    for attempt in range(1, attempts + 1):',
        '        try: return call()',
        '        except Exception:',
        '            if attempt == attempts: raise',
        '            time.sleep(delay); delay *= 2',
        '```',
      ].join('\n'),
  },
  {
    name: 'CJK card',
    renders: 'Chinese prose with bold and a list, a Japanese and a Korean paragraph (about 400 characters)',
    markdown: (variant) =>
      [
        `# 好的排版 ${variant}`,
        '好的排版让读者一眼看到重点，卡片之间的节奏也同样重要。**代码、表格和引用**都应该在合适的位置断开，而不是被拦腰截断。每一张卡片的尺寸相同，信息流看起来安静而从容。',
        '- 标题不要孤零零地留在卡片底部\n- 短段落在手机上更好读\n- 重点用**粗体**或==高亮==标出',
        '日本語の文章も、かなと漢字が自然に混ざるように組まれます。読みやすさは余白から生まれます。',
        '한국어 문장도 같은 카드 안에서 자연스럽게 보여야 합니다. 글꼴이 바뀌어도 리듬은 유지됩니다.',
        '> 简单是终极的复杂。',
      ].join('\n\n'),
  },
  {
    name: 'table card',
    renders: 'a title and a 5-column, 10-row table with aligned numbers, inline code and CJK cells',
    markdown: (variant) =>
      [
        `## Release notes ${variant}`,
        '| version | date | 变更 change | size | tests |',
        '|---|---|---|---:|---:|',
        ...Array.from({ length: 10 }, (_, i) => `| \`1.${i}.0\` | 2026-0${(i % 9) + 1}-1${i} | ${i % 2 ? '修复 fix' : '新功能 feature'} #${100 + i} | ${(i * 37) % 90 + 10} KB | ${200 + i * 13} |`),
      ].join('\n'),
  },
];

/** A card with a code block and math, as the first request after start-up sends it. */
export function codeAndMathCard(variant: number): { markdown: string } {
  return { markdown: `## First card ${variant}\n\nEuler: $e^{i\\pi} + 1 = 0$\n\n$$\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}$$\n\n\`\`\`python\nprint(sum(range(${variant})))\n\`\`\`` };
}
