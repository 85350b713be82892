// The shell examples of the README and docs/ that call the service, run as a reader would paste
// them: bash, the real curl, the documented variables set. The examples say
// http://localhost:3000; a curl configuration file sends those requests to the test service
// instead, so each block runs exactly as written, and makes curl report every answer's status.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/paths.js';
import { cleanEnv } from './cli.js';

const run = promisify(execFile);

export interface ShellExample {
  /** Where the block starts, as `file:line`. */
  where: string;
  script: string;
}

/** The host the documentation's examples address. */
const documentedOrigin = 'localhost:3000';

/** The fenced blocks of README.md and docs/*.md in one of `languages`, unindented. */
function fencedBlocks(languages: string[]): Array<ShellExample & { language: string }> {
  const docs = fs.readdirSync(path.join(projectRoot, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', ...docs].flatMap((file) => {
    const blocks: Array<ShellExample & { language: string }> = [];
    const lines = fs.readFileSync(path.join(projectRoot, file), 'utf8').split('\n');
    for (let start = 0; start < lines.length; start++) {
      const opening = /^(\s*)```(\w+)\s*$/.exec(lines[start]!);
      if (!opening) continue;
      const end = lines.findIndex((line, index) => index > start && /^\s*```\s*$/.test(line));
      const indent = opening[1]!.length;
      if (languages.includes(opening[2]!)) {
        blocks.push({ where: `${file}:${start + 1}`, language: opening[2]!, script: lines.slice(start + 1, end).map((line) => line.slice(indent)).join('\n') });
      }
      start = end;
    }
    return blocks;
  });
}

/** Fenced `sh`/`bash` blocks of README.md and docs/*.md that call the service with curl. */
export function shellExamplesCallingService(): ShellExample[] {
  return fencedBlocks(['sh', 'bash'])
    .filter(({ script }) => /\bcurl\b/.test(script) && (script.includes(documentedOrigin) || script.includes('$CARDWRIGHT_URL')))
    .map(({ where, script }) => ({ where, script }));
}

export interface ShellRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The HTTP status of every request curl made, in order. */
  statuses: number[];
}

/**
 * Runs `script` with bash (stopping at the first failing command) in `cwd`, with CARDWRIGHT_URL
 * and CARDWRIGHT_API_KEY set and http://localhost:3000 reaching `baseUrl`.
 */
export async function runShellExample(script: string, options: { baseUrl: string; apiKey: string; cwd: string }): Promise<ShellRun> {
  const target = new URL(options.baseUrl);
  const curlHome = fs.mkdtempSync(path.join(options.cwd, 'curl-home-'));
  fs.writeFileSync(
    path.join(curlHome, '.curlrc'),
    [`connect-to = "${documentedOrigin}:${target.hostname}:${target.port}"`, 'fail-with-body', 'write-out = "%{stderr}HTTP %{http_code}\\n"', ''].join('\n'),
  );
  const env = { ...cleanEnv(), CURL_HOME: curlHome, CARDWRIGHT_URL: options.baseUrl, CARDWRIGHT_API_KEY: options.apiKey };
  try {
    const { stdout, stderr } = await run('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: options.cwd, env, timeout: 60_000 });
    return { code: 0, stdout, stderr, statuses: statusesIn(stderr) };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    const stderr = failed.stderr ?? String(error);
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr, statuses: statusesIn(stderr) };
  } finally {
    fs.rmSync(curlHome, { recursive: true, force: true });
  }
}

const statusesIn = (stderr: string) => [...stderr.matchAll(/^HTTP (\d{3})$/gm)].map((match) => Number(match[1]));

export interface CodeExample extends ShellExample {
  language: 'js' | 'python';
}

/**
 * Fenced `js` and `python` blocks of README.md and docs/*.md that call the service (a whole
 * request to http://localhost:3000/api/…, not a line to paste into a script of one's own).
 */
export function codeExamplesCallingService(): CodeExample[] {
  return fencedBlocks(['js', 'python'])
    .filter(({ script }) => script.includes(`http://${documentedOrigin}/api/`) && /fetch\(|requests\.(post|get)\(/.test(script))
    .map(({ where, script, language }) => ({ where, script, language: language as CodeExample['language'] }));
}

/**
 * Runs a JavaScript example with node (as an ES module, for its top-level await) or a Python one
 * with the system's python3 and requests, with CARDWRIGHT_API_KEY set. As curl's configuration
 * does for the shell examples, a module loaded first sends http://localhost:3000 to `baseUrl`:
 * for node a wrapper of fetch, for Python a sitecustomize that wraps requests' sessions.
 */
export async function runCodeExample(example: CodeExample, options: { baseUrl: string; apiKey: string; cwd: string }): Promise<{ code: number; stdout: string; stderr: string }> {
  const folder = fs.mkdtempSync(path.join(options.cwd, 'code-example-'));
  const documented = `http://${documentedOrigin}`;
  const env = { ...cleanEnv(), CARDWRIGHT_API_KEY: options.apiKey };
  let command: string[];
  if (example.language === 'js') {
    const redirect = path.join(folder, 'redirect.mjs');
    fs.writeFileSync(
      redirect,
      `const fetch = globalThis.fetch;\nglobalThis.fetch = (url, init) => fetch(String(url).replace(${JSON.stringify(documented)}, ${JSON.stringify(options.baseUrl)}), init);\n`,
    );
    fs.writeFileSync(path.join(folder, 'example.mjs'), example.script);
    command = [process.execPath, '--import', pathToFileURL(redirect).href, path.join(folder, 'example.mjs')];
  } else {
    fs.writeFileSync(
      path.join(folder, 'sitecustomize.py'),
      [
        'import requests',
        '_request = requests.Session.request',
        'def request(self, method, url, *args, **kwargs):',
        `    return _request(self, method, url.replace(${JSON.stringify(documented)}, ${JSON.stringify(options.baseUrl)}), *args, **kwargs)`,
        'requests.Session.request = request',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(folder, 'example.py'), example.script);
    // Debian's python3, where .ci/run installs requests (python3-requests).
    command = ['/usr/bin/python3', path.join(folder, 'example.py')];
    Object.assign(env, { PYTHONPATH: folder });
  }
  try {
    const { stdout, stderr } = await run(command[0]!, command.slice(1), { cwd: folder, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? String(error) };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}
