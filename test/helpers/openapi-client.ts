// A client generated from the service's OpenAPI document, as a client's developer makes one:
// openapi-typescript turns the document into types, a small program uses them with openapi-fetch,
// the TypeScript compiler checks it, and the test runs it against the service.
//
// openapi-typescript builds its output with the TypeScript 5 compiler API, which TypeScript 7 (the
// project's compiler) no longer has: a module hook hands it the TypeScript 5 installed as
// typescript-5. The program is written under .tmp/ in the project so it resolves openapi-fetch
// from the project's own node_modules.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';

let hooked = false;

/** The `paths` types of an OpenAPI document, as openapi-typescript writes them. */
async function generateTypes(document: object): Promise<string> {
  if (!hooked) {
    const typescript5 = import.meta.resolve('typescript-5');
    const hook = `export async function resolve(specifier, context, next) {
      if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/openapi-typescript/')) return { url: ${JSON.stringify(typescript5)}, shortCircuit: true };
      return next(specifier, context);
    }`;
    register(`data:text/javascript,${encodeURIComponent(hook)}`);
    hooked = true;
  }
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  return astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
}

export interface GeneratedClient {
  /** The folder holding schema.d.ts and the program; removed by `remove`. */
  dir: string;
  /** Compiler errors of the program, empty when it type-checks. */
  typeErrors: string;
  /** Imports the program (a module exporting whatever `source` exports). */
  load<T>(): Promise<T>;
  remove(): void;
}

/** Writes the document's types and `source` (importing `./schema.js` and `openapi-fetch`), and type-checks them. */
export async function generatedClient(document: object, source: string): Promise<GeneratedClient> {
  const require = createRequire(import.meta.url);
  const parent = path.join(projectRoot, '.tmp');
  fs.mkdirSync(parent, { recursive: true });
  const dir = fs.mkdtempSync(path.join(parent, 'openapi-client-'));
  try {
    fs.writeFileSync(path.join(dir, 'schema.d.ts'), await generateTypes(document));
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  fs.writeFileSync(path.join(dir, 'client.ts'), source);
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2022', 'dom'],
        types: [],
        noEmit: true,
        skipLibCheck: true,
        // The project's own openapi-fetch, as the program will load it.
        paths: { 'openapi-fetch': [path.dirname(require.resolve('openapi-fetch/package.json'))] },
      },
      files: ['client.ts'],
    }),
  );
  const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  let typeErrors = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    typeErrors = `${(error as { stdout?: string }).stdout ?? ''}${(error as { stderr?: string }).stderr ?? ''}` || String(error);
  }
  return {
    dir,
    typeErrors,
    load: async <T>() => (await import(path.join(dir, 'client.ts'))) as T,
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
