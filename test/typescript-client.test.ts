// The OpenAPI document as a developer uses it: openapi-typescript generates types from the running
// service's /openapi.json, the example client (examples/typescript-client) is type-checked against
// them, including calls that must stay type errors, and then calls the service with openapi-fetch.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { tsImport } from 'tsx/esm/api';
import { generateTypes } from '../examples/typescript-client/generate-types.mjs';
import { projectRoot } from '../src/paths.js';
import { decodePng } from './helpers/images.js';
import { startService, testApiKey, type RunningService } from './helpers/service.js';

const exampleDir = path.join(projectRoot, 'examples', 'typescript-client');

/** What the test uses of cardwright-client.ts, which is imported only once its types exist. */
interface ExampleClient {
  generate(body: Record<string, unknown>): Promise<{ url: string; width: number; height: number }[]>;
  themes(): Promise<{ themes: { id: string }[] }>;
  ready(): Promise<boolean>;
}
interface ExampleModule {
  createCardwrightClient(baseUrl: string, apiKey: string): ExampleClient;
  CardwrightError: new (...args: never[]) => Error & { status: number; error: string };
}

describe('a TypeScript client generated from /openapi.json', () => {
  let service: RunningService;
  let example: ExampleModule;
  before(async () => {
    service = await startService();
    await generateTypes(`${service.baseUrl}/openapi.json`);
    // The example is TypeScript, as its users write it: loaded through tsx, whether this file runs
    // under tsx or compiled (scripts/compile-tests.mjs).
    example = (await tsImport(pathToFileURL(path.join(exampleDir, 'cardwright-client.ts')).href, import.meta.url)) as ExampleModule;
  });
  after(async () => service.close());

  it('type-checks, and calls that break the contract stay type errors', async () => {
    const tsc = path.join(projectRoot, 'node_modules', '.bin', 'tsc');
    const result = await promisify(execFile)(tsc, ['-p', path.join(exampleDir, 'tsconfig.json')]).catch((failure) => failure);
    assert.equal(result.code ?? 0, 0, `${result.stdout}${result.stderr}`);
  });

  it('renders cards and fetches them from the URLs it was given', async () => {
    const client = example.createCardwrightClient(service.baseUrl, testApiKey);
    assert.equal(await client.ready(), true);
    const images = await client.generate({ markdown: '# Typed client\n\nGenerated from the OpenAPI document.', width: 320, height: 400, scale: 1 });
    assert.equal(images.length, 1);
    assert.deepEqual({ width: images[0]!.width, height: images[0]!.height }, { width: 320, height: 400 });
    const png = await decodePng(Buffer.from(await (await fetch(images[0]!.url)).arrayBuffer()));
    assert.deepEqual({ width: png.width, height: png.height }, { width: 320, height: 400 });
  });

  it("gets the service's error and message back as typed fields", async () => {
    const client = example.createCardwrightClient(service.baseUrl, testApiKey);
    const refused = await client.generate({ markdown: '# a', width: 5 }).catch((failure) => failure);
    assert.ok(refused instanceof example.CardwrightError, String(refused));
    assert.equal(refused.status, 400);
    assert.equal(refused.error, 'invalid_request');
    assert.match(refused.message, /width/);
    const stranger = example.createCardwrightClient(service.baseUrl, 'not-a-key-of-this-server');
    const unauthorized = await stranger.generate({ markdown: '# a' }).catch((failure) => failure);
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.error, 'unauthorized');
  });

  it('lists the themes', async () => {
    const { themes } = await example.createCardwrightClient(service.baseUrl, testApiKey).themes();
    assert.ok(themes.some((theme) => theme.id === 'plain-notes'));
  });
});
