// The shell examples of the README and docs/ that call the service, run as a reader would paste
// them: bash, the real curl, the documented variables set. The examples say
// http://localhost:3000; a curl configuration file sends those requests to the test service
// instead, so each block runs exactly as written, and makes curl report every answer's status.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
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

/** Fenced `sh`/`bash` blocks of README.md and docs/*.md that call the service with curl. */
export function shellExamplesCallingService(): ShellExample[] {
  const docs = fs.readdirSync(path.join(projectRoot, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', ...docs].flatMap((file) => {
    const examples: ShellExample[] = [];
    const lines = fs.readFileSync(path.join(projectRoot, file), 'utf8').split('\n');
    for (let start = 0; start < lines.length; start++) {
      const opening = /^(\s*)```(sh|bash)\s*$/.exec(lines[start]!);
      if (!opening) continue;
      const end = lines.findIndex((line, index) => index > start && /^\s*```\s*$/.test(line));
      const indent = opening[1]!.length;
      const script = lines.slice(start + 1, end).map((line) => line.slice(indent)).join('\n');
      if (/\bcurl\b/.test(script) && (script.includes(documentedOrigin) || script.includes('$CARDWRIGHT_URL'))) examples.push({ where: `${file}:${start + 1}`, script });
      start = end;
    }
    return examples;
  });
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
