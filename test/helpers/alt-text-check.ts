// Each card's alt text held against what the card shows (line-breaks.ts reads its lines from the
// page): present, within the documented length, the card's own text in reading order, and in the
// card's script. Used by the corpus test on every card it renders.
import { maxAltTextLength } from '../../src/cards/alt-text/read-alt-text.js';
import type { RenderedImage } from '../../src/cards/render/render-cards.js';
import type { BlockLines } from './line-breaks.js';

/** The scripts the corpus is written in (test/helpers/corpus.ts), by their Unicode names. */
const scripts = ['Latin', 'Han', 'Hiragana', 'Katakana', 'Hangul', 'Cyrillic', 'Greek', 'Arabic', 'Hebrew', 'Thai', 'Devanagari'].map(
  (name) => ({ name, letter: new RegExp(`\\p{Script=${name}}`, 'u') }),
);

/** The script most of the letters of `text` are written in; undefined when it has no letters. */
export function dominantScript(text: string): string | undefined {
  const counts = new Map<string, number>();
  for (const [letter] of text.matchAll(/\p{L}/gu)) {
    const script = scripts.find((candidate) => candidate.letter.test(letter))?.name ?? 'other';
    counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** Text as compared: runs of white space as one space, and the invisible break hints the Markdown steps insert dropped. */
const normalised = (text: string) => text.replace(/[\u00ad\u200b\u2060\ufeff]/gu, '').replace(/\s+/gu, ' ').trim();

/** What the alt text says in place of what the card draws: its names for code blocks and formulas. */
const altTextNames = /^Code(?: \(.+\))?(?:, continued)?\.$|\(formula\)/gmu;

/**
 * What is wrong with the alt texts of one request's cards, each message starting with `label`:
 * an alt text that is empty or longer than the documented maximum; a line of text the card shows
 * that is not within one line of its alt text, after the line before it (unless the alt text was
 * cut at the maximum, where the lines past the cut are missing); an alt text whose letters are
 * mostly of another script than the card's text.
 */
export function altTextProblems(images: RenderedImage[], blocks: BlockLines[], label: string): string[] {
  const problems: string[] = [];
  for (const [index, image] of images.entries()) {
    const where = `${label}, card ${index + 1} of ${images.length}`;
    const alt: unknown = image.alt;
    if (typeof alt !== 'string' || normalised(alt) === '') {
      problems.push(`${where} has no alt text: ${JSON.stringify(alt)}`);
      continue;
    }
    if (alt.length > maxAltTextLength) problems.push(`${where}: its alt text is ${alt.length} characters long, over ${maxAltTextLength}`);
    const cut = alt.endsWith('…') && alt.length > maxAltTextLength / 2;
    const altLines = alt.split('\n').map(normalised);
    const shown = blocks
      .filter((block) => block.card === index)
      .flatMap((block) => block.lines)
      .map(normalised)
      .filter(Boolean);
    // Just past where the previous shown line was found.
    let from: Position = { line: 0, offset: 0 };
    for (const [at, line] of shown.entries()) {
      const found = nextOccurrence(altLines, line, from);
      if (found) {
        from = found;
        continue;
      }
      // An alt text cut short ends in the line it cut (pictures and code between them aside): what it kept of it begins that line.
      const last = altLines.length - 1;
      const kept = (from.line === last ? altLines[last]!.slice(from.offset) : altLines[last]!).replace(/…$/u, '').trim();
      const pastTheCut = cut && at > 0 && line.startsWith(kept);
      if (!pastTheCut) problems.push(`${where}: the line ${JSON.stringify(line)} is not in its alt text after the line before it (read to its line ${from.line + 1} of ${altLines.length}: ${JSON.stringify(altLines.slice(from.line).join('\n').slice(0, 300))}); the alt text begins ${JSON.stringify(alt.slice(0, 200))}`);
      break;
    }
    const cardScript = dominantScript(shown.join(' '));
    const altScript = dominantScript(alt.replace(altTextNames, ''));
    if (cardScript !== undefined && altScript !== cardScript) problems.push(`${where} is written in ${cardScript}, its alt text in ${altScript ?? 'no script'}: ${JSON.stringify(alt.slice(0, 80))}`);
  }
  return problems;
}

interface Position {
  line: number;
  offset: number;
}

/** Just past the next occurrence of `text` within one of `lines`, from `from` on; undefined if there is none. */
function nextOccurrence(lines: string[], text: string, from: Position): Position | undefined {
  for (let line = from.line; line < lines.length; line++) {
    const found = lines[line]!.indexOf(text, line === from.line ? from.offset : 0);
    if (found >= 0) return { line, offset: found + text.length };
  }
  return undefined;
}
