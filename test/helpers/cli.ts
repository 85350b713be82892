// Runs the installed `cardwright` command as a user would: the package's bin file with node, after
// building dist/ when it is older than its sources, with stdin, a working folder and environment
// of its own.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';

export const cliBin = path.join(projectRoot, 'bin', 'cardwright.js');

let built = false;

/**
 * Compiles src/ into dist/ once per test process when a source is newer than the last build (as
 * `npm start` does, scripts/build-if-stale.mjs), so the bin runs the code under test without
 * paying for the compiler in every test file.
 */
export function buildCli(): void {
  if (built) return;
  execFileSync(process.execPath, [path.join(projectRoot, 'scripts', 'build-if-stale.mjs')], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  built = true;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  timeoutMs?: number;
}

/** Runs `cardwright ...args` to completion (killed after timeoutMs) and returns its exit code and output. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  buildCli();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliBin, ...args], {
      cwd: options.cwd ?? projectRoot,
      env: { ...cleanEnv(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** The test process's environment without the service settings a developer may have exported. */
export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(API_KEYS|API_KEYS_FILE|DATA_DIR|PORT|HOST|THEMES_DIR|CARDWRIGHT_.*|LOG_LEVEL)$/.test(name)) env[name] = value;
  }
  return env;
}
