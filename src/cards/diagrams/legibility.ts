// Keeping a diagram's text legible on the card (diagramLimits.minTextPx). A diagram laid out left
// to right is as wide as its chain of boxes, and shrunk to the card's content width its text
// shrinks with it; laid out top to bottom it keeps the card's width and grows taller, which a card
// (or, split, several) has room for. The diagram page draws both and keeps the one with the larger
// smallest text (diagram-page.ts); a diagram still too small is named in the answer's warnings.
import { diagramLimits } from './diagram-limits.js';
import { blockLabelsBroken, participantNamesBroken } from './sequence-participants.js';

/** What Mermaid is given to draw a diagram: its source and settings. */
export interface DiagramLayout {
  source: string;
  config: Record<string, unknown>;
}

/** The warning for a diagram whose smallest text on the card is `smallestTextPx`, if it is too small. */
export function illegibleDiagramWarning(source: string, smallestTextPx: number | undefined): string | undefined {
  if (smallestTextPx === undefined || smallestTextPx >= diagramLimits.minTextPx) return undefined;
  const type = typeOf(source) ?? 'mermaid';
  return `A ${type} diagram is drawn with text of ${smallestTextPx.toFixed(1)} px on the card, below the ${diagramLimits.minTextPx} px that stays legible: it is too wide or too tall for the card even laid out again. Split it into smaller diagrams, or use a larger card or a smaller fontScale.`;
}

/** A participant's box in a sequence diagram laid out narrower, and the least gap between two. */
const narrowParticipantPx = 100;
const narrowParticipantGapPx = 20;

/** Leading lines before the diagram's type: blank lines, %% comments and %%{init}%% directives. */
const preamble = /^(?:---\n[\s\S]*?\n---[ \t]*\n)?(?:[ \t]*(?:%%[^\n]*)?\n)*/;

/**
 * The diagram redrawn to grow downwards rather than sideways, or undefined when its type has no
 * such layout (gantt, mindmap, …) and it already grows downwards. An author's own
 * `%%{init}%%` still wins over the settings given here.
 */
export function tallerLayout({ source, config }: DiagramLayout): DiagramLayout | undefined {
  const start = preamble.exec(source)?.[0].length ?? 0;
  const head = source.slice(0, start);
  const body = source.slice(start);
  // `direction LR` lines (flowchart subgraphs, state, class and ER diagrams) turn top to bottom.
  const downwards = (text: string) => text.replace(/^([ \t]*direction[ \t]+)(LR|RL)[ \t]*$/gim, (_, keyword: string, way: string) => keyword + (way.toUpperCase() === 'LR' ? 'TB' : 'BT'));
  const rewritten = (after: string) => (after === source ? undefined : { source: after, config });
  switch (typeOf(source)?.toLowerCase()) {
    case 'flowchart':
    case 'graph':
      return rewritten(head + downwards(body.replace(/^([ \t]*(?:flowchart|graph)[ \t]+)(LR|RL)\b/i, (_, keyword: string, way: string) => keyword + (way.toUpperCase() === 'LR' ? 'TD' : 'BT'))));
    case 'timeline':
      // Periods one under the other instead of side by side, with less margin around them.
      return { source: head + body.replace(/^([ \t]*timeline)(?:[ \t]+LR)?(?=[ \t]*(?:\n|$))/i, '$1 TD'), config: { ...config, timeline: { padding: 8 } } };
    case 'sequencediagram':
      // Participants closer together, with their messages and notes wrapped to fit between them,
      // and their names and the labels of blocks broken between words rather than hyphenated
      // inside one. Without the row of participants repeated at the foot, which on a card only
      // takes room (and, cut over cards, made a card of its own).
      return {
        source: head + participantNamesBroken(blockLabelsBroken(body, narrowParticipantPx, narrowParticipantGapPx), narrowParticipantPx),
        config: {
          ...config,
          sequence: { wrap: true, mirrorActors: false, width: narrowParticipantPx, actorMargin: narrowParticipantGapPx, diagramMarginX: 8, boxMargin: 6, noteMargin: 6, messageMargin: 30 },
        },
      };
    case 'pie':
      // The legend under the pie instead of beside it (Mermaid's own layout, centred): a legend of
      // long names made the drawing twice as wide as the pie, and its text half the size.
      return { source, config: { ...config, pie: { ...(config.pie as object), legendPosition: 'bottom' } } };
    case 'journey':
      // Narrower task boxes, closer together, and less margin to the left of the first. Its title
      // at 20 px rather than Mermaid's 4ex (35 px), which ran over several sections, so that no
      // fold between them (diagram-page.ts) was left.
      return { source, config: { ...config, journey: { diagramMarginX: 8, leftMargin: 100, width: 100, taskMargin: 10, boxMargin: 6, titleFontSize: '20px' } } };
    case 'c4context':
    case 'c4container':
    case 'c4component':
    case 'c4dynamic':
    case 'c4deployment':
      // One shape and one boundary to a row instead of four and two: a column of boxes as wide as
      // one, where four side by side shrank their text to a third. Mermaid takes these from the
      // source only (its `c4` settings do not set them), and an author's own line is kept.
      // Its shapes narrower too (180 px instead of 216; their text wraps), and closer together.
      if (/^[ \t]*UpdateLayoutConfig\b/im.test(body)) return undefined;
      return {
        source: `${source.trimEnd()}\nUpdateLayoutConfig($c4ShapeInRow="1", $c4BoundaryInRow="1")\n`,
        config: { ...config, c4: { ...(config.c4 as Record<string, unknown> | undefined), width: 180, c4ShapeMargin: 30 } },
      };
    case 'gitgraph':
      // Branches side by side and commits one under the other (`gitGraph TB:`), instead of commits
      // in a row as long as the history.
      return rewritten(head + body.replace(/^([ \t]*gitGraph)(?:[ \t]+LR:)?(?=[ \t]*(?:\n|$))/i, '$1 TB:'));
    case 'statediagram':
    case 'statediagram-v2':
    case 'classdiagram':
    case 'erdiagram':
      return rewritten(head + downwards(body));
    default:
      return undefined;
  }
}

/**
 * The diagram with its text `factor` times larger, for a type whose boxes keep their width when
 * their text grows: a timeline's are 200 and 300 px wide, and a C4 diagram's as wide as its
 * settings say, and both wrap their text. Larger text there makes up for the diagram being shrunk
 * to the card. Undefined for other types, which grow wider with their text and would shrink as
 * much again.
 */
export function largerTextLayout({ source, config }: DiagramLayout, factor: number): DiagramLayout | undefined {
  if (!(factor > 1)) return undefined;
  const larger = (size: unknown) => Math.ceil(parseFloat(String(size)) * factor);
  const type = typeOf(source)?.toLowerCase();
  if (type === 'timeline') {
    const themeVariables = config.themeVariables as Record<string, unknown>;
    const fontSize = `${larger(themeVariables.fontSize)}px`;
    return { source, config: { ...config, fontSize, themeVariables: { ...themeVariables, fontSize } } };
  }
  if (type && c4Types.has(type)) {
    // Every kind of element, boundary and relationship has a size of its own (Mermaid's defaults:
    // 14 px, 12 for relationships); an element's type and description are drawn smaller than it.
    const c4 = (config.c4 ?? {}) as Record<string, unknown>;
    const sizes = Object.fromEntries(Object.entries(c4FontSizes).map(([key, size]) => [key, larger(c4[key] ?? size)]));
    return { source, config: { ...config, c4: { ...c4, ...sizes } } };
  }
  return undefined;
}

const c4Types = new Set(['c4context', 'c4container', 'c4component', 'c4dynamic', 'c4deployment']);

/** Mermaid's C4 font settings and their defaults. */
const c4FontSizes: Record<string, number> = Object.fromEntries([
  ...['person', 'system', 'system_db', 'system_queue', 'container', 'container_db', 'container_queue', 'component', 'component_db', 'component_queue']
    .flatMap((kind) => [kind, `external_${kind}`])
    .map((kind) => [`${kind}FontSize`, 14]),
  ['boundaryFontSize', 14],
  ['messageFontSize', 12],
]);

/** The diagram's type, Mermaid's first keyword (`flowchart`, `sequenceDiagram`, …), after its preamble. */
export function typeOf(source: string): string | undefined {
  const start = preamble.exec(source)?.[0].length ?? 0;
  return /^[ \t]*([A-Za-z][\w-]*)/.exec(source.slice(start))?.[1];
}
