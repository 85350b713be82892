// The alt text of a Mermaid diagram drawn as a picture (markdown/mermaid-diagrams.ts), which the
// card's alt text reads in its place: what kind of diagram it is, in words, and the title and
// description its author wrote for screen readers with Mermaid's own accessibility syntax
// (`accTitle: …`, `accDescr: …` or `accDescr { … }` on lines of their own).
import { typeOf } from '../diagrams/legibility.js';

/** Mermaid's keyword for each kind of diagram, as a reader says it. */
const kindNames: Record<string, string> = {
  flowchart: 'Flowchart',
  graph: 'Flowchart',
  sequenceDiagram: 'Sequence diagram',
  classDiagram: 'Class diagram',
  stateDiagram: 'State diagram',
  'stateDiagram-v2': 'State diagram',
  erDiagram: 'Entity-relationship diagram',
  journey: 'User journey',
  gantt: 'Gantt chart',
  pie: 'Pie chart',
  quadrantChart: 'Quadrant chart',
  requirementDiagram: 'Requirement diagram',
  gitGraph: 'Git graph',
  mindmap: 'Mind map',
  timeline: 'Timeline',
  'sankey-beta': 'Sankey diagram',
  'xychart-beta': 'XY chart',
  'block-beta': 'Block diagram',
  'packet-beta': 'Packet diagram',
  kanban: 'Kanban board',
  'architecture-beta': 'Architecture diagram',
  C4Context: 'C4 context diagram',
  C4Container: 'C4 container diagram',
  C4Component: 'C4 component diagram',
  C4Dynamic: 'C4 dynamic diagram',
  C4Deployment: 'C4 deployment diagram',
};

/** E.g. `Sequence diagram: Greeting. Alice says hello and Bob answers.` */
export function diagramAlt(source: string): string {
  const kind = typeOf(source) ?? 'mermaid';
  const name = kindNames[kind] ?? `${kind} diagram`;
  const words = (text: string | undefined) => text?.replace(/\s+/g, ' ').trim() || undefined;
  const title = words(/^[ \t]*accTitle[ \t]*:(.*)$/m.exec(source)?.[1]);
  const description = words(/^[ \t]*accDescr[ \t]*:(.*)$/m.exec(source)?.[1] ?? /^[ \t]*accDescr[ \t]*\{([^}]*)\}/m.exec(source)?.[1]);
  const sentence = (text: string) => (/[.!?。！？]$/.test(text) ? text : `${text}.`);
  return [title ? `${name}: ${sentence(title)}` : sentence(name), description && sentence(description)].filter(Boolean).join(' ');
}
