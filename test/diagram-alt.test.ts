// A Mermaid diagram's alt text, which the card's alt text reads in its place: its kind in words,
// and the title and description its author wrote with Mermaid's accTitle and accDescr.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diagramAlt } from '../src/cards/alt-text/diagram-alt.js';

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
