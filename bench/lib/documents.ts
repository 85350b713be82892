// Documents the benchmarks render. Each takes a variant number that changes a little text, so
// the render cache never answers a measured request unless the benchmark means it to.

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

/** About `words` words of mixed prose, lists, quotes and code, in sections. */
export function longDocument(words: number, variant: number): string {
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
  }
  return parts.join('\n\n');
}
