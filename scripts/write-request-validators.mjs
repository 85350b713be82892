// Build step after tsc (`npm run build`): writes the validation code of the routes' large body
// schemas into dist/http/request-validators/, which the service loads at start instead of compiling
// them (src/http/request-validators.ts). The code is Ajv's standalone code, made by
// @fastify/ajv-compiler's standalone mode on a Fastify server with the service's Ajv options, so
// each file is what the service would have compiled.
import fs from 'node:fs';
import path from 'node:path';
import { StandaloneValidator } from '@fastify/ajv-compiler';
import Fastify from 'fastify';

const compiled = (file) => import(new URL(`../dist/${file}`, import.meta.url).href);
const { precompiledFileName, precompiledSchemas, precompiledValidatorsDir } = await compiled('http/request-validators.js');
const { serverAjvOptions } = await compiled('http/http-server.js');

fs.rmSync(precompiledValidatorsDir, { recursive: true, force: true });
fs.mkdirSync(precompiledValidatorsDir, { recursive: true });

const writer = (externalSchemas, ajvOptions) => {
  // Named before the standalone mode adds its own code option to the options.
  const names = new Map(precompiledSchemas.map((schema) => [schema, precompiledFileName(schema, ajvOptions)]));
  const build = StandaloneValidator({
    readMode: false,
    storeFunction: (route, code) => {
      const name = names.get(route.schema);
      if (name) fs.writeFileSync(path.join(precompiledValidatorsDir, name), code);
    },
  });
  return build(externalSchemas, ajvOptions);
};

const server = Fastify({ ajv: serverAjvOptions, schemaController: { compilersFactory: { buildValidator: writer } } });
for (const [index, schema] of precompiledSchemas.entries()) server.post(`/${index}`, { schema: { body: schema } }, async () => ({}));
await server.ready();
await server.close();
const written = fs.readdirSync(precompiledValidatorsDir);
if (written.length !== precompiledSchemas.length) throw new Error(`wrote ${written.length} request validators, expected ${precompiledSchemas.length}`);
