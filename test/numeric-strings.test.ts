// Numbers sent as text, as MD2Card's clients send them: the request check (the one the CLI and the
// MCP server run, and the HTTP routes' schema with the same reading first) takes "600" as 600 and
// says so; "abc", "" and null for a number are refused naming the field, never drawn as the default.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { CardError } from '../src/cards/errors.js';
import { checkRequest } from '../src/cards/request/check.js';
import { CoverBody } from '../src/cards/request/cover-schema.js';
import { numberFields, readNumericStrings } from '../src/cards/request/numeric-strings.js';
import { GenerateBody } from '../src/cards/request/schema.js';
import { requestValidationOptions } from '../src/cards/request/validation-options.js';

const refusal = (body: unknown) => {
  try {
    checkRequest(body);
  } catch (error) {
    assert.ok(error instanceof CardError && error.kind === 'invalid_request', String(error));
    return error.message;
  }
  assert.fail(`${JSON.stringify(body)} was accepted`);
};

describe('numbers sent as text', () => {
  it('knows the number fields of the card and cover requests', () => {
    assert.deepEqual(numberFields(GenerateBody), ['width', 'height', 'scale', 'fontScale']);
    assert.deepEqual(numberFields(CoverBody), ['count', 'width', 'height', 'scale']);
  });

  it('reads a numeric string as its number, with a warning naming the field', () => {
    const { request, warnings } = checkRequest({ markdown: '# x', width: '600', height: ' 800 ', scale: '1.5', fontScale: '2e0' });
    assert.deepEqual([request.width, request.height, request.scale, request.fontScale], [600, 800, 1.5, 2]);
    assert.deepEqual(warnings, [
      'width was sent as the string "600" and read as the number 600; send it as a JSON number.',
      'height was sent as the string " 800 " and read as the number 800; send it as a JSON number.',
      'scale was sent as the string "1.5" and read as the number 1.5; send it as a JSON number.',
      'fontScale was sent as the string "2e0" and read as the number 2; send it as a JSON number.',
    ]);
    assert.deepEqual(checkRequest({ width: 600 }).warnings, [], 'a number is no news');
  });

  it('checks the number read against the field bounds', () => {
    assert.match(refusal({ width: '5000' }), /^width is not accepted: got number 5000; accepted: card width in CSS px, 100–2000\.$/);
  });

  it('refuses a string that is not a number, "" and null, naming the field', () => {
    assert.equal(refusal({ width: 'abc' }), 'width is not accepted: got "abc"; accepted: card width in CSS px, 100–2000.');
    assert.equal(refusal({ height: '586px' }), 'height is not accepted: got "586px"; accepted: card height in CSS px, 100–4000.');
    // Written like a number, but beyond any double: refused as sent, not as "Infinity".
    assert.equal(refusal({ width: '1e400' }), 'width is not accepted: got "1e400"; accepted: card width in CSS px, 100–2000.');
    assert.equal(refusal({ scale: '' }), 'scale is not accepted: got ""; accepted: device pixels per CSS px, 1–3.');
    assert.equal(refusal({ width: null }), 'width is not accepted: got null; accepted: card width in CSS px, 100–2000.');
    assert.equal(refusal({ fontScale: null }), "fontScale is not accepted: got null; accepted: factor on the theme's type and spacing, 0.5–4.");
  });

  it("reads the cover's count and size the same way, for its route's schema", () => {
    const { body, warnings } = readNumericStrings({ text: '标题', count: '3', width: '500' }, CoverBody);
    assert.deepEqual(body, { text: '标题', count: 3, width: 500 });
    assert.deepEqual(warnings.map((warning) => warning.split(' ')[0]), ['count', 'width']);
    const validate = new Ajv(requestValidationOptions).compile(CoverBody);
    assert.equal(validate(body), true);
    assert.equal(validate({ text: '标题', count: null }), false, 'null is not a count');
  });

  it('leaves everything else as sent', () => {
    assert.deepEqual(readNumericStrings({ theme: '600', mdxMode: 'true' }, GenerateBody).body, { theme: '600', mdxMode: 'true' });
    assert.deepEqual(readNumericStrings([1], GenerateBody).body, [1]);
    assert.equal(readNumericStrings(null, GenerateBody).body, null);
  });
});
