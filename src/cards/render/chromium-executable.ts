// Which Chromium binary to drive. Order (docs/performance.md#which-chromium): CHROMIUM_PATH, then a Chrome/Chromium
// installed on the host, then the headless shell that ships inside the @sparticuz/chromium npm
// package, so `npm install` alone always yields a working renderer.
import fs from 'node:fs';

const systemCandidates = [
  '/usr/lib/chromium/chromium', // Debian's real binary; /usr/bin/chromium is a shell wrapper around it
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

export interface ChromiumExecutable {
  path: string;
  source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
}

export async function findChromium(configuredPath?: string): Promise<ChromiumExecutable> {
  if (configuredPath) {
    if (!fs.existsSync(configuredPath)) {
      throw new Error(`CHROMIUM_PATH points at ${configuredPath}, which does not exist. Fix the path or unset it.`);
    }
    return { path: configuredPath, source: 'CHROMIUM_PATH' };
  }
  const system = systemCandidates.find((candidate) => fs.existsSync(candidate));
  if (system) return { path: system, source: 'system' };

  // Inflates the bundled binary into the temp directory on first use (about 1.5 s), then reuses it.
  const { default: sparticuz } = await import('@sparticuz/chromium');
  return { path: await sparticuz.executablePath(), source: '@sparticuz/chromium' };
}
