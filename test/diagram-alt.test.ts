// What the card's alt text reads in place of a picture. A Mermaid diagram: its kind in words, and
// the title and description its author wrote with Mermaid's accTitle and accDescr. An image
// without alt text (a README's badges): nothing, as a screen reader passes over alt="", so its
// placeholder is hidden from screen readers (read-alt-text.ts leaves such placeholders out).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diagramAlt } from '../src/cards/alt-text/diagram-alt.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';

describe('diagram alt text', () => {
  it('names the kind of diagram in words, after comments, directives and a front matter', () => {
    assert.equal(diagramAlt('flowchart LR\n  A --> B'), 'Flowchart.');
    assert.equal(diagramAlt('%% steps\n%%{init: {"theme": "dark"}}%%\nsequenceDiagram\n  A->>B: hi'), 'Sequence diagram.');
    assert.equal(diagramAlt('---\ntitle: Orders\n---\nerDiagram\n  A ||--o{ B : has'), 'Entity-relationship diagram.');
    assert.equal(diagramAlt('zenuml\n  A.b()'), 'zenuml diagram.');
  });

  it("reads the author's accTitle and accDescr, on one line or in braces", () => {
    assert.equal(diagramAlt('sequenceDiagram\n  accTitle: Greeting\n  accDescr: Alice says hello and Bob answers\n  Alice->>Bob: Hello'), 'Sequence diagram: Greeting. Alice says hello and Bob answers.');
    assert.equal(diagramAlt('pie\n  accDescr {\n    Two thirds of the time\n    goes to meetings.\n  }\n  "Meetings" : 2\n  "Work" : 1'), 'Pie chart. Two thirds of the time goes to meetings.');
    assert.equal(diagramAlt('flowchart TD\n  accTitle: 发布流程\n  A --> B'), 'Flowchart: 发布流程.');
  });
});

describe('images without alt text', () => {
  it('leaves a badge without alt out of its line (no word for screen readers or on the card), and draws one with alt as a picture named by it', async () => {
    const badges = ['ci', 'size', 'downloads', 'license', 'chat'].map((name) => `[![](https://img.shields.io/badge/${name}-ok-green)](https://example.com/${name})`).join(' ');
    const { html } = await renderMarkdown(`# Delaunator ${badges} [![npm version](https://img.shields.io/npm/v/delaunator)](https://npm.im/delaunator)`);
    // Each placeholder's attributes after its class, and its text.
    const placeholders = [...html.matchAll(/<span class="image-placeholder[^"]*"([^>]*)>([^<]*)<\/span>/g)].map(([, attributes, text]) => `${attributes!.trim()}: ${text}`);
    assert.deepEqual(placeholders, ['role="img" aria-label="npm version": npm version']);
    // Their links held nothing else.
    assert.doesNotMatch(html, /example\.com/);
  });
});
