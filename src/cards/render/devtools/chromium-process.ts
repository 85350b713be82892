// Starts Chromium with its DevTools protocol on a pipe (pipe-connection.ts), headless, in a
// profile folder of its own that is removed when it exits.
//
// Chromium is started as the leader of its own process group, and every helper it starts
// (zygotes, GPU, network service, renderers) stays in that group: killing the group is the one
// reliable way to leave nothing behind (browser-instance.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { PipeConnection } from './pipe-connection.js';

/**
 * Switches every launch gets, whatever the caller adds: the ones that make a headless browser
 * render the same on every host (scrollbars hidden, sRGB colours, no field trials), and the ones
 * that keep it from doing work nobody asked for (background networking, timers throttled in the
 * background, crash reports, first-run screens).
 */
const headlessSwitches = [
  '--headless',
  '--hide-scrollbars',
  '--force-color-profile=srgb',
  '--disable-field-trial-config',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
  '--disable-back-forward-cache',
  '--disable-breakpad',
  '--disable-hang-monitor',
  '--disable-ipc-flooding-protection',
  '--disable-dev-shm-usage',
  '--disable-features=PaintHolding,MediaRouter,OptimizationHints,Translate',
  '--metrics-recording-only',
  '--password-store=basic',
  '--use-mock-keychain',
  '--no-default-browser-check',
  '--no-service-autorun',
  '--no-sandbox',
  '--no-startup-window',
  '--remote-debugging-pipe',
];

/** How long Chromium may take to answer its first command before the launch is given up. */
const launchTimeoutMs = 30_000;
/** How long a launch whose pipe closed waits for the process's exit, to report its reason. */
const exitReasonWaitMs = 1_000;
/** The last bytes of Chromium's error output kept, to explain a failed launch. */
const keptErrorOutput = 4_000;

export interface ChromiumLaunchOptions {
  executablePath: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
}

/** A running Chromium and the pipe to it. */
export interface ChromiumProcess {
  connection: PipeConnection;
  /** The browser's process id, which is also its process group's; undefined if it could not start. */
  pid: number | undefined;
  /** Chromium's version, e.g. "147.0.7727.0". */
  version: string;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
}

export async function launchChromium({ executablePath, args, env }: ChromiumLaunchOptions): Promise<ChromiumProcess> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cardwright-chromium-'));
  const child = spawn(executablePath, [...headlessSwitches, `--user-data-dir=${profile}`, ...args], {
    env: env ?? process.env,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
  });
  let errorOutput = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errorOutput = (errorOutput + chunk.toString('utf8')).slice(-keptErrorOutput);
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  void exited.then(() => fs.rmSync(profile, { recursive: true, force: true }));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(error));
    child.once('exit', (code, signal) => reject(new Error(`Chromium exited while starting (${signal ?? `code ${code}`}): ${errorOutput.trim().slice(-1_000)}`)));
  });
  const connection = new PipeConnection(child.stdio[3] as Writable, child.stdio[4] as Readable);
  child.once('exit', () => connection.close(new Error('the browser exited')));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Chromium did not answer within ${launchTimeoutMs / 1000} s of its start`)), launchTimeoutMs);
  });
  // The pipe may report its end before the process reports its exit: the exit's reason, when it
  // comes within a moment, says more than the pipe's end.
  const answered = connection.root.send('Browser.getVersion').catch(async (error: unknown) => {
    await Promise.race([failed, new Promise((resolve) => setTimeout(resolve, exitReasonWaitMs))]);
    throw error;
  });
  try {
    const { product } = await Promise.race([answered, failed, timedOut]);
    failed.catch(() => {});
    return { connection, pid: child.pid, version: product.replace(/^[^/]*\//, ''), exited };
  } catch (error) {
    killGroup(child);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
