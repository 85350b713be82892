// A sequence diagram laid out narrower (legibility.ts) gives every participant a box of one width
// and has Mermaid wrap the names to it; Mermaid breaks a word wider than the box with a hyphen
// ("HealthChec-k", "OrderServi-ce"). Such names are broken into lines here instead, between
// words and at the parts of a word written in camel case, snake case or with hyphens
// ("Health / Check"); Mermaid keeps a name that has its own line breaks as it is.

/** Mermaid's participant text size and the padding it keeps on each side of a wrapped name. */
const nameFontPx = 14;
const wrapPaddingPx = 10;

/** A participant declared by name (`participant Alice`), or with a label (`actor A as Alice`). */
const declaration = /^([ \t]*(?:participant|actor)[ \t]+)([^\s]+?)(?:[ \t]+as[ \t]+(.+?))?[ \t]*$/i;
/** The two participants of a message line (`Alice->>+Bob: text`), with the arrows Mermaid reads. */
const message = /^[ \t]*([^\s:+-][^\s:]*?)[ \t]*(?:<<-{1,2}>>|-{1,2}(?:>>|>|x|\)))[ \t]*[+-]?[ \t]*([^\s:]+?)[ \t]*:/;
/** What this rewriting leaves alone: boxes, created and destroyed participants, participants with settings. */
const unsupported = /^[ \t]*(?:box|create|destroy)\b|@\{/im;

/** Full-width characters: Chinese, Japanese and Korean, which break between any two without a hyphen. */
const fullWidth = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

/** Roughly how wide `text` is at `fontPx`: full-width characters (CJK, kana, Hangul) an em, capitals two thirds, the rest 0.55. */
function textWidth(text: string, fontPx: number): number {
  let ems = 0;
  for (const character of text) {
    if (fullWidth.test(character)) ems += 1;
    else if (/\p{Lu}/u.test(character)) ems += 0.67;
    else ems += 0.55;
  }
  return ems * fontPx;
}

/** A word's parts: where its case changes (`HealthCheck`), after `_`, `-` and `.`. */
const partsOf = (word: string): string[] => word.split(/(?<=[\p{Ll}\d])(?=\p{Lu})|(?<=[_.-])/u).filter((part) => part !== '');

/**
 * A part of a word in pieces that a box shows: a Latin one whole when it overruns the box's padding
 * by little ("Authentication"), else cut, with a hyphen between two letters ("Internationaliza-
 * tion") and none between full-width characters ("外卖平台订 / 单调度中心").
 */
function piecesOf(part: string, room: number): string[] {
  const width = textWidth(part, nameFontPx);
  if (width <= room || (!fullWidth.test(part) && width <= room + 2 * wrapPaddingPx + 20)) return [part];
  const pieces: string[] = [];
  let piece = '';
  for (const character of part) {
    const hyphen = /\p{L}$/u.test(piece) && /\p{L}/u.test(character) && !fullWidth.test(character) ? '-' : '';
    if (piece !== '' && textWidth(`${piece}${character}${hyphen}`, nameFontPx) > room) {
      pieces.push(`${piece}${hyphen}`);
      piece = character;
    } else piece += character;
  }
  return [...pieces, piece];
}

/** `name` in lines no wider than `room` px, broken between words and between the parts of a word; undefined if it fits as it is. */
function brokenName(name: string, room: number): string | undefined {
  const words = name.split(/[ \t]+/).filter((word) => word !== '');
  if (words.every((word) => textWidth(word, nameFontPx) <= room) || /<br\s*\/?>/i.test(name)) return undefined;
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    partsOf(word).flatMap((part) => piecesOf(part, room)).forEach((part, index) => {
      const joined = line === '' ? part : `${line}${index === 0 ? ' ' : ''}${part}`;
      if (line !== '' && textWidth(joined, nameFontPx) > room) {
        lines.push(line);
        line = part;
      } else line = joined;
    });
  }
  lines.push(line);
  return lines.join('<br/>');
}

/**
 * `body` (the source from its type line on) with every participant name that has a word wider than
 * a box of `boxPx` broken into lines. Every participant is then declared right after the type line,
 * in the order they first appear (the order Mermaid gives them), with the keyword it was declared
 * with; its own declaration line is dropped. A body this does not read well (boxes, created
 * participants) is returned as it is.
 */
export function participantNamesBroken(body: string, boxPx: number): string {
  if (unsupported.test(body)) return body;
  const room = boxPx - 2 * wrapPaddingPx;
  const participants = new Map<string, { keyword: string; name: string }>();
  const lines = body.split('\n');
  const declarationLines = new Set<number>();
  lines.forEach((line, index) => {
    const declared = declaration.exec(line);
    if (declared) {
      declarationLines.add(index);
      const [, keyword, id, label] = declared;
      // As Mermaid does: a label given later replaces the name (the participant keeps its place);
      // a later declaration without one changes nothing.
      if (!participants.has(id!) || label !== undefined) participants.set(id!, { keyword: keyword!.trim(), name: label ?? id! });
      return;
    }
    const sent = message.exec(line);
    if (sent) for (const id of [sent[1]!, sent[2]!]) if (!participants.has(id)) participants.set(id, { keyword: 'participant', name: id });
  });
  const broken = new Map([...participants].map(([id, { name }]) => [id, brokenName(name, room)]));
  if (![...broken.values()].some((name) => name !== undefined)) return body;
  const declarations = [...participants].map(([id, { keyword, name }]) => {
    const shown = broken.get(id) ?? name;
    return `${keyword} ${id}${shown === id ? '' : ` as ${shown}`}`;
  });
  // The body's first line is its type line (`sequenceDiagram`).
  return [lines[0], ...declarations, ...lines.slice(1).filter((_, index) => !declarationLines.has(index + 1))].join('\n');
}
