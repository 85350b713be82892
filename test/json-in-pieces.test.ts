// A large JSON answer sent in pieces (src/http/json-in-pieces.ts) is the very text JSON.stringify
// writes, whatever the value: long strings cut anywhere, surrogate pairs and characters that JSON
// escapes at the cuts included; and while it is sent, the event loop keeps turning.
import assert from 'node:assert/strict';
import { text } from 'node:stream/consumers';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { holdsLongText, jsonInPieces } from '../src/http/json-in-pieces.js';

/** A string of more than a slice (256 Ki characters) from `unit` repeated: escapes and surrogate pairs land on the cuts. */
const longString = fc.tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 7 }), fc.integer({ min: 0, max: 5 })).map(([unit, extra]) => {
  const times = Math.ceil((256 * 1024 + 1) / unit.length) + extra;
  return unit.repeat(times);
});

describe('a JSON answer in pieces', () => {
  it('is exactly what JSON.stringify writes', async () => {
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
      tree: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('tree'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('tree'), { maxKeys: 4 })),
    })).tree;
    await fc.assert(
      fc.asyncProperty(value, longString, async (tree, long) => {
        const answer = { cards: [{ html: long, index: 1 }], tree, warnings: [] };
        assert.equal(await text(jsonInPieces(answer)), JSON.stringify(answer));
      }),
      { numRuns: 25 },
    );
  });

  it('lets the event loop turn while it is read', async () => {
    const answer = { cards: Array.from({ length: 8 }, () => ({ html: `<img src="data:image/png;base64,${'A'.repeat(1_000_000)}">` })) };
    assert.ok(holdsLongText(answer.cards));
    assert.equal(holdsLongText({ cards: [{ html: '<p>short</p>' }] }), false);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const sent = await text(jsonInPieces(answer));
    clearInterval(ticking);
    assert.equal(sent.length, JSON.stringify(answer).length);
    assert.ok(turns >= 8, `the event loop turned ${turns} times while 8 MB were sent`);
  });
});
