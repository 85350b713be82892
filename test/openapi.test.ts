// GET /openapi.json and /docs: a valid OpenAPI 3.1 document that tells the truth. Bodies the
// document forbids are rejected by the server and bodies it allows are rendered, checked with a
// standard JSON Schema validator against the document on hand-picked and generated bodies.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fs from 'node:fs';
import path from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { projectRoot } from '../src/paths.js';
import { startService, testApiKey, type RunningService } from './helpers/service.js';

type Json = any;

/** The non-null branch of a `value or null` field; a number field (no null) itself. */
const valueBranch = (property: Json): Json => (property.anyOf ? property.anyOf.find((branch: Json) => branch.type !== 'null') : property);
/** The values of an enumeration written as a union of one-value enums. */
const enumValues = (branch: Json): unknown[] => branch.anyOf.flatMap((literal: Json) => literal.enum ?? [literal.const]);

describe('OpenAPI document', () => {
  let service: RunningService;
  let doc: Json;
  let generate: Json;
  before(async () => {
    service = await startService();
    const response = await fetch(`${service.baseUrl}/openapi.json`);
    assert.equal(response.status, 200);
    doc = await response.json();
    generate = doc.paths['/api/generate'].post;
  });
  after(async () => service.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      '/api/config',
      '/api/generate',
      '/api/generate/cover',
      '/api/jobs',
      '/api/jobs/{id}',
      '/api/preview',
      '/api/preview/images/{id}',
      '/api/requests/{id}',
      '/api/themes',
      '/api/themes/{theme}/thumbnail.webp',
      '/api/user/info',
      '/health',
      '/metrics',
      '/ready',
      '/screenshots/{fileName}',
    ]);
  });

  it("lists every route of Fastify's route table but the web page's files and the API reference itself", () => {
    // The editor's page and files, and the documentation of the API: not operations a client calls.
    const notApi = [/^\/$/, /^\/assets\//, /^\/vendor\//, /^\/preview\/frame$/, /^\/fonts\//, /^\/openapi\.json$/, /^\/docs(\/|$)/];
    const served = routeTable(service.app.server.printRoutes())
      .filter(({ method }) => method !== 'HEAD')
      .filter(({ path }) => !notApi.some((pattern) => pattern.test(path)))
      .map(({ method, path }) => `${method} ${path}`)
      .sort();
    // OpenAPI writes /a/:b as /a/{b}, and the stored images' wildcard as {fileName}.
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace('{fileName}', '*').replace(/\{(\w+)\}/g, ':$1')}`))
      .sort();
    assert.deepEqual(served, documented);
  });

  it('types every binary answer as binary, so generated clients read a Blob, not a string', () => {
    const binary: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [type, media] of Object.entries((operation.responses[200]?.content ?? {}) as Record<string, Json>)) {
          if (type === 'application/json' || type.startsWith('text/')) continue;
          assert.equal(media.schema.format, 'binary', `${method} ${path} ${type}`);
          assert.equal(media.schema.contentMediaType, type, `${method} ${path} ${type}`);
          binary.push(type);
        }
      }
    }
    assert.deepEqual([...new Set(binary)].sort(), ['application/pdf', 'image/avif', 'image/bmp', 'image/gif', 'image/jpeg', 'image/png', 'image/webp', 'image/x-icon']);
  });

  it("passes Redocly's recommended rules, warning only where the README says why", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: `${service.baseUrl}/openapi.json`, config });
    const described = problems.map((problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`);
    assert.deepEqual(problems.filter((problem) => problem.severity === 'error'), [], described.join('\n'));
    // The probes and the metrics answer 200 (or 503) whatever is sent: there is no 4XX to document (README, "API reference").
    assert.deepEqual(described.sort(), [
      'warn operation-4xx-response #/paths/~1health/get/responses: Operation must have at least one `4XX` response.',
      'warn operation-4xx-response #/paths/~1metrics/get/responses: Operation must have at least one `4XX` response.',
      'warn operation-4xx-response #/paths/~1ready/get/responses: Operation must have at least one `4XX` response.',
    ]);
    const readme = fs.readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
    assert.match(readme, /operation-4xx-response/, 'the README lists the warnings and why');
  });

  it('documents the status and shape of every answer the service gives', async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const resolve = (schema: Json): Json => JSON.parse(JSON.stringify(schema), (_key, value) =>
      value && typeof value === 'object' && typeof value.$ref === 'string'
        ? resolve(value.$ref.split('/').slice(1).reduce((node: Json, part: string) => node[part], doc))
        : value,
    );
    const check = async (method: string, route: string, url: string, init: RequestInit = {}) => {
      const response = await fetch(`${service.baseUrl}${url}`, { method, ...init });
      const operation = doc.paths[route][method.toLowerCase()];
      const documented = operation.responses[String(response.status)];
      assert.ok(documented, `${method} ${url} answered ${response.status}, which ${route} documents`);
      const type = (response.headers.get('content-type') ?? '').split(';')[0]!;
      if (response.status === 304) return response;
      assert.ok(documented.content?.[type], `${method} ${url} ${response.status} is documented as ${type}`);
      if (type === 'application/json') {
        const body = await response.json();
        const schema = resolve(documented.content[type].schema);
        assert.ok(ajv.validate(schema, body), `${method} ${url} ${response.status}: ${JSON.stringify(ajv.errors)} ${JSON.stringify(body)}`);
      }
      return response;
    };
    const json = { 'content-type': 'application/json' };
    await check('GET', '/health', '/health');
    await check('GET', '/ready', '/ready');
    await check('GET', '/api/themes', '/api/themes');
    await check('GET', '/api/config', '/api/config');
    await check('POST', '/api/preview', '/api/preview', { headers: json, body: JSON.stringify({ markdown: '# Preview' }) });
    await check('POST', '/api/preview', '/api/preview', { headers: json, body: JSON.stringify({ width: 5000 }) });
    await check('POST', '/api/preview', '/api/preview', { headers: { 'content-type': 'text/plain' }, body: '# text' });
    const splitPreview = await fetch(`${service.baseUrl}/api/preview`, { method: 'POST', headers: json, body: JSON.stringify({ markdown: '# Split', splitMode: 'autoSplit' }) });
    const split = (await splitPreview.json()) as { cards: { image: string }[] };
    await check('GET', '/api/preview/images/{id}', split.cards[0]!.image);
    await check('GET', '/api/preview/images/{id}', `/api/preview/images/${'0'.repeat(40)}`);
    await check('GET', '/api/preview/images/{id}', '/api/preview/images/not-an-id');
    const thumbnail = await check('GET', '/api/themes/{theme}/thumbnail.webp', '/api/themes/plain-notes/thumbnail.webp?mode=dark-mode');
    await check('GET', '/api/themes/{theme}/thumbnail.webp', '/api/themes/plain-notes/thumbnail.webp?mode=dark-mode', {
      headers: { 'if-none-match': thumbnail.headers.get('etag')! },
    });
    await check('GET', '/api/themes/{theme}/thumbnail.webp', '/api/themes/no-such-theme/thumbnail.webp');
    const { json: generated } = await service.generate({ markdown: '# Stored', scale: 1 });
    const stored = new URL(generated.images[0].url).pathname;
    const image = await check('GET', '/screenshots/{fileName}', stored);
    await check('GET', '/screenshots/{fileName}', stored, { headers: { 'if-none-match': image.headers.get('etag')! } });
    await check('GET', '/screenshots/{fileName}', '/screenshots/1795315408146_missing.png');
    await check('GET', '/api/requests/{id}', `/api/requests/${new URL(generated.previewUrl).searchParams.get('edit')}`);
    await check('GET', '/api/requests/{id}', '/api/requests/1795315408146_000000000000000000000000');
    await check('GET', '/metrics', '/metrics');
    await check('GET', '/api/user/info', '/api/user/info', { headers: { 'x-api-key': testApiKey } });
    await check('GET', '/api/user/info', '/api/user/info');
  });

  it('shows, for each label, a message the service builds the same way it answers', async () => {
    const example = (route: string, method: string, status: number) =>
      doc.paths[route][method].responses[status].content['application/json'].example?.message ??
      Object.values(doc.paths[route][method].responses[status].content['application/json'].examples).map((entry: Json) => entry.value.message);
    const missing = await fetch(`${service.baseUrl}/api/generat`, { method: 'GET' });
    assert.equal((await missing.json()).message, example('/api/generate', 'post', 404));
    const tooLarge = await service.generate(JSON.stringify({ markdown: 'x'.repeat(1024 * 1024) }));
    assert.equal(tooLarge.json.message, example('/api/generate', 'post', 413));
    const unknownTheme = await fetch(`${service.baseUrl}/api/themes/no-such-theme/thumbnail.webp`);
    assert.equal((await unknownTheme.json()).message, example('/api/themes/{theme}/thumbnail.webp', 'get', 400));
    const missingImage = await fetch(`${service.baseUrl}/screenshots/1795315408146_84b5d217bd25f896c994bada.png`);
    assert.equal((await missingImage.json()).message, example('/screenshots/{fileName}', 'get', 404));
  });

  it('documents every request field with its type, bounds and default', () => {
    const properties = generate.requestBody.content['application/json'].schema.properties;
    assert.deepEqual(Object.keys(properties).sort(), ['background', 'fontFamily', 'fontScale', 'format', 'hashtags', 'height', 'markdown', 'mdxMode', 'overHiddenMode', 'scale', 'splitMode', 'theme', 'themeMode', 'watermark', 'weChatMode', 'width']);
    assert.equal(valueBranch(properties.markdown).maxLength, 100_000);
    assert.equal(properties.markdown.default, '# Hello, cardwright');
    assert.deepEqual([valueBranch(properties.width).minimum, valueBranch(properties.width).maximum, properties.width.default], [100, 2000, 440]);
    assert.deepEqual([valueBranch(properties.height).minimum, valueBranch(properties.height).maximum, properties.height.default], [100, 4000, 586]);
    assert.deepEqual([valueBranch(properties.scale).minimum, valueBranch(properties.scale).maximum, properties.scale.default], [1, 3, 2]);
    assert.deepEqual([valueBranch(properties.fontScale).minimum, valueBranch(properties.fontScale).maximum, properties.fontScale.default], [0.5, 4, 1]);
    assert.deepEqual(enumValues(valueBranch(properties.splitMode)), ['noSplit', 'autoSplit', 'hrSplit', '']);
    assert.equal(properties.splitMode.default, 'noSplit');
    assert.deepEqual(enumValues(valueBranch(properties.format)), ['png', 'jpeg', 'webp', 'pdf', '']);
    assert.deepEqual(enumValues(valueBranch(properties.fontFamily)), ['sans', 'serif', 'kai', 'rounded', 'mono', 'hand', '']);
    assert.equal(properties.hashtags.default, true);
    assert.equal(properties.format.default, 'png');
    assert.equal(properties.theme.default, 'plain-notes');
    assert.match(properties.theme.description, /`plain-notes` \(light-mode, dark-mode\)/);
    for (const flag of ['mdxMode', 'overHiddenMode', 'weChatMode']) {
      assert.equal(valueBranch(properties[flag]).type, 'boolean');
      assert.equal(properties[flag].default, false);
    }
    assert.deepEqual(generate.security, [{ apiKey: [] }]);
    assert.deepEqual(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'x-api-key' });
  });

  it('lists every error label under its status, each with an example', () => {
    const labels: Record<string, string[]> = {
      400: ['invalid_request'],
      401: ['unauthorized'],
      404: ['not_found'],
      413: ['payload_too_large'],
      415: ['unsupported_media_type'],
      429: ['rate_limited'],
      500: ['render_failed', 'internal_error'],
      502: ['storage_failed'],
      503: ['overloaded'],
      504: ['timeout'],
    };
    for (const [status, expected] of Object.entries(labels)) {
      const answer = generate.responses[status];
      assert.ok(answer, `status ${status} is documented`);
      const media = answer.content['application/json'];
      const errorSchema = media.schema.properties.error;
      assert.deepEqual(errorSchema.enum ?? enumValues(errorSchema), expected);
      for (const label of expected) assert.ok(answer.description.includes(`\`${label}\``), `${status} says when ${label} happens`);
      const examples = media.example ? [media.example] : Object.values(media.examples).map((example: Json) => example.value);
      assert.deepEqual(examples.map((example: Json) => example.error), expected);
    }
    assert.ok(generate.responses[429].headers['Retry-After']);
    assert.ok(generate.responses[503].headers['Retry-After']);
    assert.ok(generate.responses[200].content['application/json'].example.images[0].url);
  });

  it('shows the messages the server really sends', async () => {
    const exampleMessage = (status: number) => generate.responses[status].content['application/json'].example.message;
    assert.equal((await service.generate({ width: 5000 })).json.message, exampleMessage(400));
    assert.equal((await service.generate({}, { 'x-api-key': '' })).json.message, exampleMessage(401));
    assert.equal((await service.generate('# not json', { 'content-type': 'text/plain' })).json.message, exampleMessage(415));
  });

  it("accepts the document's request examples", async () => {
    const examples = Object.values(generate.requestBody.content['application/json'].examples).map((example: Json) => example.value);
    assert.ok(examples.length >= 2);
    for (const body of examples) {
      const { status, json } = await service.generate(body);
      assert.equal(status, 200, JSON.stringify(json));
    }
  });

  it('agrees with the server on which bodies are valid', async () => {
    const bodySchema = generate.requestBody.content['application/json'].schema;
    const allowedByDocument = new Ajv2020({ strict: false }).compile(bodySchema);

    const handPicked: unknown[] = [
      {},
      { markdown: '# ok', width: 200, height: 200, scale: 1 },
      { markdown: '# wide', width: 2000, height: 200, scale: 1 },
      { theme: null, themeMode: '', markdown: null, format: null },
      { width: null },
      { markdown: '# extra', scale: 1, unknownField: [1, 2] },
      { markdown: '# webp', format: 'webp', scale: 1, mdxMode: false, overHiddenMode: true },
      { markdown: 'x'.repeat(100_000), overHiddenMode: true, scale: 1 },
      { width: 99 },
      { width: 2001 },
      { height: 4001 },
      { scale: 0.5 },
      { scale: 3.01 },
      { width: '440px' },
      { mdxMode: 'true' },
      { overHiddenMode: 1 },
      { splitMode: 'pageSplit' },
      { format: 'gif' },
      { theme: 5 },
      { themeMode: 'x'.repeat(65) },
      { markdown: 'x'.repeat(100_001) },
      { markdown: ['# a'] },
      [],
      'text',
      42,
      null,
    ];
    const generated = generatedBodies(24);
    const generatedAllowed = generated.filter((body) => allowedByDocument(body)).length;
    assert.ok(generatedAllowed >= 6 && generatedAllowed <= 18, `the generated bodies exercise both verdicts (${generatedAllowed} of 24 allowed)`);
    for (const body of [...handPicked, ...generated]) {
      const expected = allowedByDocument(body);
      const { status, json } = await service.generate(JSON.stringify(body));
      const label = JSON.stringify(body).slice(0, 80);
      if (expected) {
        assert.equal(status, 200, `the document allows ${label}, the server answered ${status} ${json.message}`);
      } else {
        assert.equal(status, 400, `the document forbids ${label}, the server answered ${status}`);
        assert.equal(json.error, 'invalid_request');
      }
    }
  });

  it('serves a readable API reference page from its own files', async () => {
    const page = await fetch(`${service.baseUrl}/docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const html = await page.text();
    assert.match(html, /<title>cardwright API reference<\/title>/);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    assert.ok(assets.length >= 3);
    for (const asset of assets) {
      assert.doesNotMatch(asset, /^(https?:)?\/\//, `${asset} is served by cardwright itself, not a CDN`);
      assert.equal((await fetch(new URL(asset, `${service.baseUrl}/docs`))).status, 200, asset);
    }
    const documentAsServedToThePage = await (await fetch(`${service.baseUrl}/docs/json`)).json();
    assert.deepEqual(documentAsServedToThePage, doc);
  });
});

/**
 * The routes of Fastify's printRoutes() tree: each line is a node, indented four characters a
 * level, whose label continues its parent's path; a node that ends a route lists its methods.
 */
function routeTable(tree: string): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  const prefixes: string[] = [];
  for (const line of tree.split('\n')) {
    const node = /^([\s│]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/u.exec(line);
    if (!node) continue;
    const depth = node[1]!.length / 4;
    prefixes.length = depth;
    const path = (prefixes[depth - 1] ?? '') + node[2]!;
    prefixes[depth] = path;
    for (const method of node[3]?.split(', ') ?? []) routes.push({ method, path });
  }
  return routes;
}

/**
 * Request bodies drawn from a fixed seed: each field absent, valid or invalid at random, with
 * values cheap to render, so both verdicts occur and failures reproduce.
 */
function generatedBodies(count: number): Record<string, unknown>[] {
  let seed = 20_240_611;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const fields: Record<string, { valid: unknown[]; invalid: unknown[] }> = {
    markdown: { valid: ['# Generated', '中文 **粗体**', null, ''], invalid: [7, false, { text: 'x' }] },
    theme: { valid: ['plain-notes', 'apple-notes', null], invalid: [1, ['plain-notes']] },
    themeMode: { valid: [null, ''], invalid: [0, 'x'.repeat(65)] },
    // A number sent as text ("300") is read, with a warning, beyond what the document says.
    width: { valid: [100, 300.4], invalid: [99.9, 2000.5, 'wide', true, null] },
    height: { valid: [200, 250], invalid: [0, 4000.01, '586px', null] },
    splitMode: { valid: ['noSplit', null], invalid: ['split', 1] },
    mdxMode: { valid: [false, null], invalid: ['false', 0] },
    overHiddenMode: { valid: [true, false, null], invalid: ['yes', 1] },
    format: { valid: ['png', 'jpeg', 'webp', null], invalid: ['PNG', 'bmp'] },
    scale: { valid: [1, 1.5], invalid: [0, 3.5, 'x2', null] },
    fontScale: { valid: [0.5, 1, 2.5], invalid: [0.4, 4.5, 'big', null] },
  };
  return Array.from({ length: count }, () => {
    const body: Record<string, unknown> = {};
    for (const [field, values] of Object.entries(fields)) {
      const roll = random();
      if (roll < 0.45) continue;
      body[field] = roll < 0.93 ? pick(values.valid) : pick(values.invalid);
    }
    return body;
  });
}
