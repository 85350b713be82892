// Markdown of only whitespace (spaces, blank lines, tabs, ideographic spaces), or of raw HTML that
// draws nothing (`<div> </div>`, `<p></p>`, `<br>`, a comment, a rule alone), draws what empty
// Markdown draws, the default heading (src/cards/request/schema.ts), in every split mode, not an
// empty card; and inside a document, such HTML never makes a card of its own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { splitModes } from '../src/cards/request/schema.js';
import { countNear, decodePng, differingFraction, download } from './helpers/images.js';
import { startService, type RunningService } from './helpers/service.js';

describe('whitespace-only Markdown', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('renders like empty Markdown in every split mode', async () => {
    for (const splitMode of splitModes) {
      const cards = async (markdown: string) => {
        const { status, json } = await service.generate({ markdown, splitMode, theme: 'minimal', scale: 1 });
        assert.equal(status, 200, JSON.stringify(json));
        return Promise.all(json.images.map(async (image: { url: string }) => await decodePng((await download(image.url)).bytes)));
      };
      const empty = await cards('');
      const blanks = ['  \n\n\t\n\u3000 \n', '<div> </div>', '<div>\n\n</div>\n\n<p>&nbsp;</p>\n\n<br>\n\n<!-- a comment -->', '<div></div>\n\n---\n\n<span></span>'];
      for (const markdown of blanks) {
        const blank = await cards(markdown);
        assert.equal(blank.length, empty.length, `${splitMode} ${JSON.stringify(markdown)}: number of cards`);
        for (const [index, png] of blank.entries()) {
          assert.equal(differingFraction(png, empty[index]!), 0, `${splitMode} ${JSON.stringify(markdown)}: card ${index + 1} matches the empty request's`);
        }
      }
    }
  });

  it('makes no card of empty raw HTML inside a document, in autoSplit and hrSplit', async () => {
    const count = async (markdown: string, splitMode: string) => {
      const { status, json } = await service.generate({ markdown, splitMode, theme: 'minimal', scale: 1 });
      assert.equal(status, 200, JSON.stringify(json));
      return json.images.length;
    };
    const sections = '# A\n\n---\n\n<div> </div>\n\n---\n\n<p>&nbsp;</p><br>\n\n---\n\n# B';
    assert.equal(await count(sections, 'hrSplit'), 2, 'hrSplit: a card for A and one for B, none for the empty sections between');
    const tail = '# A\n\nSome text.\n\n<div>\n\n</div>\n\n<p></p><br>\n\n<div><span></span></div>';
    assert.equal(await count(tail, 'autoSplit'), 1, 'autoSplit: empty HTML after the text adds no card');
  });

  it('draws the frame of a picture without alt text that failed (it holds no text) instead of the default heading', async () => {
    const drawn = async (markdown: string) => {
      const { status, json } = await service.generate({ markdown, theme: 'minimal', scale: 1 });
      assert.equal(status, 200, JSON.stringify(json));
      return { png: await decodePng((await download(json.images[0].url)).bytes), alt: json.images[0].alt };
    };
    const [empty, frame] = [await drawn(''), await drawn('![](https://nowhere.invalid/photo.jpg)')];
    assert.equal(frame.alt, 'Image.');
    assert.ok(differingFraction(frame.png, empty.png) > 0.01, 'not the empty request\'s card');
  });

  it('draws an element with no text whose style paints a box (a coloured block is content)', async () => {
    const { status, json } = await service.generate({ markdown: '<div style="height:200px;background:#e01010"></div>', theme: 'minimal', scale: 1 });
    assert.equal(status, 200, JSON.stringify(json));
    const png = await decodePng((await download(json.images[0].url)).bytes);
    assert.ok(countNear(png, [0xe0, 0x10, 0x10]) > png.width * 100, 'the red block is drawn, not the default heading');
  });
});
