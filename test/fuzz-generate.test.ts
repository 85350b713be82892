// Fuzzing POST /api/generate with 2,000+ generated and mutated bodies: random JSON, wrong types,
// huge and odd numbers, deep nesting, broken JSON, random Unicode Markdown. Every answer must be a
// 200 with images or a 4xx in the error shape with the label of its status; never a 5xx or a crash.
// Most bodies fail validation cheaply; the ones that render use small content at scale 1.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startService, type RunningService } from './helpers/service.js';

const fields = ['markdown', 'theme', 'themeMode', 'width', 'height', 'splitMode', 'mdxMode', 'overHiddenMode', 'format', 'scale'];

const labelOfStatus: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/** Numbers JSON can carry that a validator might mishandle, written as raw JSON text. */
const oddNumberText = fc.constantFrom('1e999', '-1e999', '1e-999', '-0', '0.0000001', '9007199254740993', '440.5', '1e3', '2000.4999', '199.5', '3.0000001');

const smallMarkdown = fc.oneof(
  fc.string({ maxLength: 120, unit: 'grapheme' }),
  fc.string({ maxLength: 120, unit: 'binary' }),
  fc.array(fc.constantFrom('# ', '## ', '- ', '> ', '```', '|a|b|\n|-|-|\n', '**', '~~', '==', '$x$', '---', '\n', '<b>', '</div>', '<img src=x>', '😀', '中文', '\u202e', '\u0000', '[x](javascript:1)'), { maxLength: 20 }).map((parts) => parts.join('')),
);

/** A body that may render: known fields with plausible values, small content, scale 1. */
const renderableBody = fc.record(
  {
    markdown: smallMarkdown,
    theme: fc.constantFrom('plain-notes', 'apple-notes', null, '', 'no-such-theme'),
    themeMode: fc.constantFrom(undefined, 'light-mode', 'dark-mode', 'neon-mode', null),
    width: fc.integer({ min: 150, max: 420 }),
    height: fc.integer({ min: 150, max: 420 }),
    splitMode: fc.constantFrom('noSplit', null, 'autoSplit', 'hrSplit', 'bogus'),
    overHiddenMode: fc.boolean(),
    format: fc.constantFrom('png', 'jpeg', 'webp', 'gif'),
    scale: fc.constantFrom(1, 1, 1, 0.5, 4),
  },
  { requiredKeys: ['markdown', 'scale', 'width'] },
).map((body) => JSON.stringify(body));

/** Known fields with values of any type, including huge numbers and nested structures. */
const wrongTypesBody = fc
  .dictionary(fc.constantFrom(...fields), fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.double(), fc.integer()), { minKeys: 1 })
  .map((body) => JSON.stringify({ scale: 1, width: 200, height: 200, markdown: 'x', ...body }));

const oddNumbersBody = fc
  .tuple(fc.constantFrom('width', 'height', 'scale'), oddNumberText)
  .map(([field, number]) => `{"markdown":"n","scale":1,"${field}":${number}}`);

const randomJson = fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value));

const deepNesting = fc
  .tuple(fc.integer({ min: 100, max: 200_000 }), fc.constantFrom('[', '{"a":', '{"markdown":', '{"__proto__":', '{"constructor":{"prototype":'))
  .map(([depth, open]) => {
    const close = open === '[' ? ']' : open.includes('prototype') ? '}}' : '}';
    const count = Math.min(depth, Math.floor(900_000 / open.length));
    return `${open.repeat(count)}1${close.repeat(count)}`;
  });

/** A valid body's text with a few characters deleted, inserted or replaced: mostly broken JSON. */
const mutatedBody = fc
  .tuple(
    fc.constantFrom('{"markdown":"# Hi","width":300,"scale":1}', '{"theme":"plain-notes","themeMode":"dark-mode","scale":1}', '{}'),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom('delete', 'insert', 'replace'), fc.string({ minLength: 1, maxLength: 3, unit: 'binary' })), { minLength: 1, maxLength: 4 }),
  )
  .map(([text, edits]) => {
    let out = text;
    for (const [position, kind, chars] of edits) {
      const at = position % (out.length + 1);
      if (kind === 'delete') out = out.slice(0, at) + out.slice(at + 1);
      else if (kind === 'insert') out = out.slice(0, at) + chars + out.slice(at);
      else out = out.slice(0, at) + chars + out.slice(at + chars.length);
    }
    return out;
  });

const oversized = fc.constantFrom(
  JSON.stringify({ markdown: 'a'.repeat(100_001) }),
  JSON.stringify({ markdown: 'x', padding: 'p'.repeat(1_100_000) }),
  JSON.stringify({ theme: 't'.repeat(65) }),
);

const anyBody = fc.oneof(
  { weight: 1, arbitrary: renderableBody },
  { weight: 6, arbitrary: wrongTypesBody },
  { weight: 2, arbitrary: oddNumbersBody },
  { weight: 3, arbitrary: randomJson },
  { weight: 1, arbitrary: deepNesting },
  { weight: 4, arbitrary: mutatedBody },
  { weight: 1, arbitrary: oversized },
);

describe('fuzzing POST /api/generate', () => {
  let service: RunningService;
  before(async () => {
    // The default settings (two render pages, a queue of 64): with them, the file shares the warm
    // service of its lane's group (test/lanes.mjs) instead of starting one of its own.
    service = await startService();
  });
  after(async () => service.close());

  it('answers 2,000 generated bodies with 200 or a 4xx error, and keeps serving', async () => {
    const bodies = fc.sample(anyBody, { numRuns: 2_000, seed: 20_260_422 });
    const statuses = new Map<number, number>();
    const parallel = 4;
    let next = 0;
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]!;
          const { status, json } = await service.generate(body);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          const problem = checkAnswer(status, json);
          if (problem && failures.length < 10) failures.push(`${problem}\n  body: ${body.slice(0, 200)}\n  answer: ${JSON.stringify(json).slice(0, 300)}`);
        }
      }),
    );
    assert.deepEqual(failures, []);
    if (process.env.FUZZ_REPORT) console.log(summaryOf(statuses));
    const summary = summaryOf(statuses);
    assert.ok((statuses.get(200) ?? 0) >= 50, `some bodies rendered: ${summary}`);
    assert.ok((statuses.get(400) ?? 0) >= 1_000, `most bodies were refused: ${summary}`);
    assert.ok((statuses.get(413) ?? 0) >= 1, `an oversized body was refused: ${summary}`);

    const health = await fetch(`${service.baseUrl}/health`);
    assert.equal(health.status, 200);
    const after = await service.generate({ markdown: '# still here' });
    assert.equal(after.status, 200);
  });
});

/** What is wrong with an answer, or undefined when it is acceptable. */
function checkAnswer(status: number, json: any): string | undefined {
  if (status === 200) {
    if (!Array.isArray(json.images) || json.images.length === 0) return '200 without images';
    for (const image of json.images) {
      if (typeof image.url !== 'string' || !(image.width > 0) || !(image.height > 0) || !(image.size > 0)) return '200 with a malformed image entry';
    }
    return undefined;
  }
  if (status < 400 || status >= 500) return `status ${status}`;
  if (typeof json.error !== 'string' || typeof json.message !== 'string' || typeof json.requestId !== 'string') return 'error without the error shape';
  if (labelOfStatus[status] !== json.error) return `status ${status} with label ${json.error}`;
  return undefined;
}

const summaryOf = (statuses: Map<number, number>) =>
  [...statuses]
    .sort()
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
