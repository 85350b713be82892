// Markdown of only whitespace (spaces, blank lines, tabs, ideographic spaces) draws what empty
// Markdown draws, the default heading (src/cards/request/schema.ts), in every split mode,
// not an empty card.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { splitModes } from '../src/cards/request/schema.js';
import { decodePng, differingFraction, download } from './helpers/images.js';
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
        return Promise.all(json.images.map(async (image: { url: string }) => decodePng((await download(image.url)).bytes)));
      };
      const empty = await cards('');
      const blank = await cards('  \n\n\t\n\u3000 \n');
      assert.equal(blank.length, empty.length, `${splitMode}: number of cards`);
      for (const [index, png] of blank.entries()) {
        assert.equal(differingFraction(png, empty[index]!), 0, `${splitMode}: card ${index + 1} matches the empty request's`);
      }
    }
  });
});
