// API keys: from API_KEYS, from API_KEYS_FILE, or (with neither) one generated on first start and
// kept in DATA_DIR so later starts reuse it. Keys are compared as SHA-256 digests in constant time
// against every known key, so neither timing nor an early exit reveals how close a guess was.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';

export interface ApiKeyStore {
  isValid(candidate: string | undefined): boolean;
  /** Set when this start generated the key, so the operator can be told it once. */
  generatedKey?: string;
  /** Where the keys came from, for the start-up log (never the keys themselves). */
  source: string;
}

const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest();

export function loadApiKeys(config: Config): ApiKeyStore {
  let keys = [...config.apiKeys];
  let source = 'API_KEYS';
  let generatedKey: string | undefined;

  if (config.apiKeysFile) {
    keys.push(...readKeyFile(config.apiKeysFile));
    source = config.apiKeys.length > 0 ? 'API_KEYS and API_KEYS_FILE' : `API_KEYS_FILE (${config.apiKeysFile})`;
  }
  if (keys.length === 0 && !config.apiKeysFile) {
    const file = defaultKeyFile(config);
    if (!fs.existsSync(file)) {
      generatedKey = newApiKey();
      addKeyToFile(file, generatedKey);
    }
    keys = readKeyFile(file);
    source = file;
  }
  if (keys.length === 0) throw new Error(`No API key is configured: ${source} holds no keys. Add one key per line.`);

  const digests = keys.map(digest);
  return {
    source,
    generatedKey,
    isValid(candidate) {
      if (!candidate) return false;
      const wanted = digest(candidate);
      let match = false;
      for (const known of digests) match = timingSafeEqual(known, wanted) || match;
      return match;
    },
  };
}

/** A new key: "cw_" and 192 random bits. */
export function newApiKey(): string {
  return `cw_${randomBytes(24).toString('base64url')}`;
}

/** The file that holds the generated key(s) when neither API_KEYS nor API_KEYS_FILE is set. */
export function defaultKeyFile(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'api-keys.txt');
}

/** Appends a key to a key file, creating the file (readable by its owner only) when missing. */
export function addKeyToFile(file: string, key: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  // A new file starts with a comment; an existing one may lack its final newline.
  const before = existing === undefined ? '# cardwright API keys, one per line\n' : existing && !existing.endsWith('\n') ? '\n' : '';
  fs.appendFileSync(file, `${before}${key}\n`, { mode: 0o600 });
}

function readKeyFile(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`API_KEYS_FILE ${file} cannot be read (${(error as NodeJS.ErrnoException).code}). Create it with one key per line.`);
  }
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
}
