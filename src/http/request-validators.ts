// Fastify compiles a validator for every route's schema when the server gets ready. Two of them are
// large: the bodies of POST /api/generate (also /api/preview and the jobs) and of POST
// /api/generate/cover took 70–90 ms of the main thread at every start, right before the service
// could listen (docs/performance.md#start-up). The build writes their validation code beforehand
// (Ajv's standalone code, the same @fastify/ajv-compiler's standalone mode writes;
// scripts/write-request-validators.mjs), and a start loads those small files instead. A schema the
// build did not write (one changed since the last build, another Ajv, other options) is compiled
// as before: each file is named by a digest of what its code depends on.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';
import { CoverBody } from '../cards/request/cover-schema.js';
import { GenerateBody } from '../cards/request/schema.js';
import { nodeModulesDir, projectRoot } from '../paths.js';

/** The schemas whose validators the build writes: the ones that take long to compile. */
export const precompiledSchemas: readonly object[] = [GenerateBody, CoverBody];

/** Where the build writes them, beside this module's compiled copy. */
export const precompiledValidatorsDir = path.join(projectRoot, 'dist', 'http', 'request-validators');

type AjvOptions = Parameters<ValidatorFactory>[1];
type Validate = ReturnType<ReturnType<ValidatorFactory>>;

/**
 * Validators compiled once per process and shared by every server it creates: a process that
 * creates several servers (a test file that starts several services) compiles each schema once.
 * The compiled functions depend only on the schema and the validation options, which key the
 * pool; Ajv keeps them by schema object.
 */
const compilers = AjvCompiler();

/** The versions of the packages that write and run the code, read once per process. */
let packageVersions: string[] | undefined;
const versions = () =>
  (packageVersions ??= ['ajv', 'ajv-formats', '@fastify/ajv-compiler'].map((name) => {
    const { version } = JSON.parse(fs.readFileSync(path.join(nodeModulesDir, name, 'package.json'), 'utf8')) as { version: string };
    return `${name}@${version}`;
  }));

/** The file name of a schema's validation code: a digest of the schema, the Ajv options and the packages' versions. */
export function precompiledFileName(schema: unknown, ajvOptions: AjvOptions): string {
  const digest = createHash('sha256').update(JSON.stringify([versions(), ajvOptions, schema])).digest('hex');
  return `${digest.slice(0, 24)}.cjs`;
}

const requireCode = createRequire(import.meta.url);

/** Fastify's buildValidator: the code the build wrote where there is some, else Ajv's compilation. */
export const requestValidators: ValidatorFactory = (externalSchemas, ajvOptions) => {
  const compile = compilers(externalSchemas, ajvOptions);
  // Only the schemas the build writes are looked for: the small ones compile in about a millisecond.
  const written = new Map<unknown, Validate>();
  if (fs.existsSync(precompiledValidatorsDir)) {
    for (const schema of precompiledSchemas) {
      const file = path.join(precompiledValidatorsDir, precompiledFileName(schema, ajvOptions));
      if (fs.existsSync(file)) written.set(schema, requireCode(file) as Validate);
    }
  }
  return (route) => written.get(route.schema) ?? compile(route);
};
