// The large body schemas' validators come from the build (src/http/request-validators.ts,
// scripts/write-request-validators.mjs): a server uses the written code for exactly the schemas and
// options it was written for, that code accepts and refuses every body as the validator Fastify
// would compile (the same errors too, which the error messages are made of), and anything else is
// compiled as before.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';
import fc from 'fast-check';
import Fastify from 'fastify';
import { serverAjvOptions } from '../src/http/http-server.js';
import { precompiledFileName, precompiledSchemas, precompiledValidatorsDir, requestValidators } from '../src/http/request-validators.js';

type AjvOptions = Parameters<ValidatorFactory>[1];

/** The Ajv options a server of the service hands its validator factory (Fastify adds its defaults). */
async function serverOptions(): Promise<AjvOptions> {
  let seen: AjvOptions | undefined;
  const server = Fastify({
    ajv: serverAjvOptions,
    schemaController: {
      compilersFactory: {
        buildValidator: (externalSchemas, options) => {
          seen = options;
          return requestValidators(externalSchemas, options);
        },
      },
    },
  });
  server.post('/', { schema: { body: precompiledSchemas[0]! } }, async () => ({}));
  await server.ready();
  await server.close();
  assert.ok(seen, 'the server built its validators');
  return seen;
}

const route = (schema: object) => ({ schema, method: 'POST', url: '/', httpPart: 'body' }) as Parameters<ReturnType<ValidatorFactory>>[0];

/** Bodies near each schema: its own property names with values of every JSON kind, and strays. */
function bodiesFor(schema: object): fc.Arbitrary<unknown> {
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  const names = Object.keys(properties);
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.string({ maxLength: 12 }),
    fc.integer({ min: -10, max: 5000 }),
    fc.double({ noNaN: true }),
    fc.constantFrom(null, true, '', 'png', 'autoSplit', 'light', '#fff', 'x'.repeat(300)),
  );
  const body = fc.dictionary(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 6 })), value, { maxKeys: 8 });
  return fc.oneof(body, fc.jsonValue({ maxDepth: 2 }));
}

describe('request validators written by the build', () => {
  it('are used by a server of the service for exactly the large schemas', async () => {
    const options = await serverOptions();
    const load = createRequire(import.meta.url);
    const build = requestValidators({}, options);
    for (const schema of precompiledSchemas) {
      const file = path.join(precompiledValidatorsDir, precompiledFileName(schema, options));
      assert.ok(fs.existsSync(file), `${path.basename(file)} written by the build for the current schema and options`);
      assert.equal(build(route(schema)), load(file), 'the server validates with the written code');
    }
    // Another schema, or the same with other options, is compiled: its code was never written.
    const changed = { ...precompiledSchemas[0]!, required: ['markdown'] };
    assert.notEqual(build(route(changed)), undefined);
    assert.equal(build(route(changed))({}), false, 'the changed schema is the one applied');
    const otherOptions = { ...options, customOptions: { ...options?.customOptions, allErrors: true } } as AjvOptions;
    assert.ok(!fs.existsSync(path.join(precompiledValidatorsDir, precompiledFileName(precompiledSchemas[0]!, otherOptions))));
  });

  it('accept and refuse every body as the compiled validators do, with the same errors', async () => {
    const options = await serverOptions();
    const written = requestValidators({}, options);
    // A pool of its own: these validators are compiled here, from the schemas.
    const compiled = AjvCompiler()({}, options);
    for (const schema of precompiledSchemas) {
      const fromBuild = written(route(schema));
      const fromAjv = compiled(route(schema));
      assert.notEqual(fromBuild, fromAjv);
      fc.assert(
        fc.property(bodiesFor(schema), (body) => {
          const accepted = fromBuild(structuredClone(body));
          assert.equal(accepted, fromAjv(structuredClone(body)));
          assert.deepEqual((fromBuild as { errors?: unknown }).errors ?? null, (fromAjv as { errors?: unknown }).errors ?? null);
        }),
        { numRuns: 3000 },
      );
      // A body that passes, as clients send them.
      assert.equal(fromBuild({ markdown: '# Hi', text: 'Hi', theme: 'minimal' }), true);
    }
  });
});
