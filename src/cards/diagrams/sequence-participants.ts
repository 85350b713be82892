// A sequence diagram laid out narrower (legibility.ts) gives every participant a box of one width
// and has Mermaid wrap the names to it; Mermaid breaks a word wider than the box with a hyphen
// ("HealthChec-k", "OrderServi-ce"). Such names are broken into lines here instead, between
// words and at the parts of a word written in camel case, snake case or with hyphens
// ("Health / Check"), Chinese and Japanese between phrases ("外卖平台 / 订单调度"); Mermaid keeps a
// name that has its own line breaks as it is. The labels of blocks (`loop HealthCheck`, `alt`,
// `else`, …) are wrapped by Mermaid to the block's width less its tag, as narrow as 30 px for a
// block around one participant ("[Hea-lthC-heck-]"), and are broken here the same way, for the
// width of the participants the block spans.
import { hasCjkLetters, phraseBreaks } from '../markdown/cjk-phrases.js';

/** Mermaid's participant and message text sizes, and the padding it keeps on each side of a wrapped name or label. */
const nameFontPx = 14;
const labelFontPx = 16;
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

/**
 * A word's parts: where its case changes (`HealthCheck`), after `_`, `-` and `.`, and between the
 * phrases of Chinese or Japanese (markdown/cjk-phrases.ts).
 */
function partsOf(word: string): string[] {
  const parts = word.split(/(?<=[\p{Ll}\d])(?=\p{Lu})|(?<=[_.-])/u).filter((part) => part !== '');
  return parts.flatMap((part) => {
    if (!hasCjkLetters(part)) return [part];
    const { breaks } = phraseBreaks(part, 'none');
    return [0, ...breaks].map((start, index) => part.slice(start, breaks[index] ?? part.length));
  });
}

/**
 * A part of a word in pieces that a box shows: a Latin one whole when it overruns the box's padding
 * by little ("Authentication"), else cut, with a hyphen between two letters ("Internationaliza-
 * tion") and none between full-width characters ("外卖平台订 / 单调度中心").
 */
function piecesOf(part: string, room: number, fontPx: number): string[] {
  const width = textWidth(part, fontPx);
  if (width <= room || (!fullWidth.test(part) && width <= room + 2 * wrapPaddingPx + 20)) return [part];
  const pieces: string[] = [];
  let piece = '';
  for (const character of part) {
    const hyphen = /\p{L}$/u.test(piece) && /\p{L}/u.test(character) && !fullWidth.test(character) ? '-' : '';
    if (piece !== '' && textWidth(`${piece}${character}${hyphen}`, fontPx) > room) {
      pieces.push(`${piece}${hyphen}`);
      piece = character;
    } else piece += character;
  }
  return [...pieces, piece];
}

/**
 * `name` in lines no wider than `room` px at `fontPx`, broken between words and between the parts
 * of a word; undefined if its words fit as they are (Mermaid then wraps it between them).
 */
function brokenName(name: string, room: number, fontPx = nameFontPx): string | undefined {
  const words = name.split(/[ \t]+/).filter((word) => word !== '');
  if (words.every((word) => textWidth(word, fontPx) <= room) || /<br\s*\/?>/i.test(name)) return undefined;
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    partsOf(word).flatMap((part) => piecesOf(part, room, fontPx)).forEach((part, index) => {
      const joined = line === '' ? part : `${line}${index === 0 ? ' ' : ''}${part}`;
      if (line !== '' && textWidth(joined, fontPx) > room) {
        lines.push(line);
        line = part;
      } else line = joined;
    });
  }
  lines.push(line);
  return lines.join('<br/>');
}

/**
 * The participants a line of the body draws at: a message's two, a note's one or two
 * (`Note over A,B:`). Undefined for any other line.
 */
function drawnAt(line: string): string[] | undefined {
  const sent = message.exec(line);
  if (sent) return [sent[1]!, sent[2]!];
  const noted = note.exec(line);
  return noted ? noted[1]!.split(',').map((id) => id.trim()).filter((id) => id !== '') : undefined;
}

/**
 * `body` (the source from its type line on) with every participant name that has a word wider than
 * a box of `boxPx` broken into lines. Every participant is then declared right after the type line,
 * in the order they first appear in declarations, messages and notes (the order Mermaid gives them), with the keyword it was declared
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
    // A note brings its participants in too, where Mermaid meets them (`Note over A,B` A first).
    for (const id of drawnAt(line) ?? []) if (!participants.has(id)) participants.set(id, { keyword: 'participant', name: id });
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

/** A block's first line (`loop every minute`, `rect` for nesting only) and the lines that go on with it (`else`, `and`, `option`), with their labels. */
const blockStart = /^([ \t]*(?:loop|alt|opt|par|par_over|critical|break|rect)(?=[ \t]|$)[ \t]*)(.*)$/i;
const blockGoesOn = /^([ \t]*(?:else|and|option)(?=[ \t]|$)[ \t]*)(.*)$/i;
const blockEnd = /^[ \t]*end[ \t]*$/i;
/** The participants a note is drawn at (`Note right of John:`, `Note over A,B:`). */
const note = /^[ \t]*note[ \t]+(?:left[ \t]+of|right[ \t]+of|over)[ \t]+([^:]*):/i;
/** The width of a block's tag (`loop`, Mermaid's labelBoxWidth), which its label's room leaves out. */
const blockTagPx = 50;
/**
 * Room a block's label has at least. Mermaid makes a block as wide as its messages run (from the
 * middle of one participant to the middle of another), or as its widest message around one.
 */
const smallestLabelRoomPx = 60;

interface OpenBlock {
  /** Lines holding its labels (its first line, its `else` and `and` lines). */
  labelLines: number[];
  /** Order of the first and last participants (see below) drawn inside it. */
  first: number;
  last: number;
}

/**
 * `body` with the labels of its blocks broken into lines where a word is too wide for the block,
 * at the same places as names. A block is at least as wide as the distance between the first and
 * last participants drawn inside it (each `boxPx` wide, `gapPx` apart), less its tag; a label whose
 * words fit that is left to Mermaid, which wraps it between its words.
 */
export function blockLabelsBroken(body: string, boxPx: number, gapPx: number): string {
  if (unsupported.test(body)) return body;
  const lines = body.split('\n');
  const order = new Map<string, number>();
  const at = (id: string) => {
    if (!order.has(id)) order.set(id, order.size);
    return order.get(id)!;
  };
  const open: OpenBlock[] = [];
  const rewritten = new Map<number, string>();
  lines.forEach((line, index) => {
    const declared = declaration.exec(line);
    const participants = declared ? [] : drawnAt(line);
    if (declared) at(declared[2]!);
    if (participants) {
      for (const id of participants) {
        const place = at(id);
        for (const block of open) {
          block.first = Math.min(block.first, place);
          block.last = Math.max(block.last, place);
        }
      }
      return;
    }
    if (blockStart.test(line)) open.push({ labelLines: [index], first: Infinity, last: -Infinity });
    else if (blockGoesOn.test(line)) open.at(-1)?.labelLines.push(index);
    else if (blockEnd.test(line)) {
      const block = open.pop();
      if (!block || block.last < block.first) return;
      const room = Math.max(smallestLabelRoomPx, (block.last - block.first) * (boxPx + gapPx) - blockTagPx - 2 * wrapPaddingPx);
      for (const labelLine of block.labelLines) {
        const [, keyword, written] = (blockStart.exec(lines[labelLine]!) ?? blockGoesOn.exec(lines[labelLine]!))!;
        const label = written!.trimEnd();
        if (!label || /^rect\b/i.test(keyword!.trim())) continue;
        // Mermaid draws the label in brackets, and wraps it with them.
        const broken = brokenName(`[${label}]`, room, labelFontPx);
        if (broken) rewritten.set(labelLine, `${keyword}${broken.slice(1, -1)}`);
      }
    }
  });
  return rewritten.size === 0 ? body : lines.map((line, index) => rewritten.get(index) ?? line).join('\n');
}
