// A document with images or diagrams takes two passes in a Markdown worker: the first only finds
// what to fetch and draw, and ends once it has asked (asking-pass.ts); the second renders with the
// answers. And the steps after code highlighting skip a highlighted block's contents
// (highlighted-code.ts), which a document cannot forge.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AskedDiagrams, AskedImages } from '../src/cards/markdown/document-asks.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';

const fence = (language: string, lines: number) => `\`\`\`${language}\n${Array.from({ length: lines }, (_, i) => `const n${i} = ${i};`).join('\n')}\n\`\`\``;

/** One pass as a worker runs it: what it asked, the stages it went through, and its HTML. */
async function pass(markdown: string, answers?: { images?: AskedImages; diagrams?: AskedDiagrams }) {
  const images = answers?.images ?? new AskedImages();
  const diagrams = answers?.diagrams ?? new AskedDiagrams();
  const stages: string[] = [];
  const first = !answers;
  const { html } = await renderMarkdown(markdown, {
    remoteImages: images,
    diagrams,
    progress: (stage) => stages.push(stage),
    ...(first ? { endOnceAsked: () => images.asked.length > 0 || diagrams.asked.length > 0 } : {}),
  });
  return { html, stages, asked: { images: images.asked, diagrams: diagrams.asked } };
}

describe("a document's first pass in a Markdown worker", () => {
  it('ends once it has asked for a diagram, before any code is highlighted', async () => {
    const first = await pass(`# Flow\n\n\`\`\`mermaid\ngraph TD\na --> b\n\`\`\`\n\n${fence('ts', 200)}`);
    assert.deepEqual(first.asked.diagrams, ['graph TD\na --> b']);
    assert.equal(first.html, '');
    assert.ok(!first.stages.some((stage) => /highlight/.test(stage)), first.stages.join(' | '));
  });

  it('ends once it has asked for an image, after the step that finds images in raw HTML too', async () => {
    const first = await pass(`${fence('ts', 20)}\n\n![a](https://images.test/a.png)\n\n<p><img src="https://images.test/b.png" alt="b"></p>`);
    assert.deepEqual(first.asked.images, ['https://images.test/a.png', 'https://images.test/b.png']);
    assert.equal(first.html, '');
  });

  it('is the whole HTML when it asked for nothing', async () => {
    const first = await pass(`# Plain\n\n${fence('ts', 3)}`);
    assert.deepEqual(first.asked, { images: [], diagrams: [] });
    assert.match(first.html, /<pre class="code-block[^"]*"[^>]*>/);
    assert.match(first.html, /<h1[^>]*>Plain<\/h1>/);
  });

  it('is followed by a second pass that renders everything with the answers', async () => {
    const markdown = `\`\`\`mermaid\ngraph TD\na --> b\n\`\`\`\n\n${fence('ts', 3)}`;
    const second = await pass(markdown, { diagrams: new AskedDiagrams(new Map([['graph TD\na --> b', { ok: false, message: 'too slow', transient: true }]])) });
    assert.match(second.html, /This diagram could not be drawn: too slow/);
    assert.equal(second.html.match(/<pre class="code-block/g)?.length, 2, 'the diagram source and the fence, both highlighted');
  });
});

describe('the steps after code highlighting', () => {
  it('leave what a highlighted block holds as its text, and still see an image in a <pre> the document wrote with the same class', async () => {
    const markdown = [
      '```md\n# not a heading\n\n![not an image](https://images.test/in-code.png) *强调*\n```',
      '<pre class="code-block"><img src="https://images.test/forged.png" alt="forged"></pre>',
    ].join('\n\n');
    const first = await pass(markdown);
    assert.deepEqual(first.asked.images, ['https://images.test/forged.png']);
    const plain = await renderMarkdown(markdown);
    assert.doesNotMatch(plain.html, /<h1|data-cjk|<img[^>]*in-code/);
    assert.match(plain.html.replaceAll('<wbr>', ''), /https:\/\/images\.test\/in-code\.png/);
  });
});
