// API keys: from API_KEYS, from API_KEYS_FILE, or (with neither) one generated on first start and
// kept in DATA_DIR so later starts reuse it. A key file holds one key per line, either the key
// itself or `sha256:<hex digest>` so the file need not contain the secret. The file is read again
// when it changes and on SIGHUP (see server.ts); a file that became unreadable or empty keeps the
// keys already loaded, so a bad edit never locks every client out.
//
// With REDIS_URL a key can also be revoked for every replica at once (`cardwright keys revoke`,
// src/shared-state/revoked-keys.ts): a revoked key is refused whatever the key files say.
//
// Keys are compared as SHA-256 digests in constant time against every known key, so neither
// timing nor an early exit reveals how close a guess was. Keys are never logged.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';

export interface ApiKeyStore {
  isValid(candidate: string | undefined): boolean;
  /** A short, non-secret identifier of a valid key (for rate limits); undefined for an invalid one. */
  idOf(candidate: string): string | undefined;
  /** True for a key the key files or API_KEYS name, revoked or not: a secret to keep out of the log. */
  recognizes(candidate: string): boolean;
  /** Reads the key file again; keeps the current keys if it cannot. */
  reload(): void;
  /** Stops watching the key file. */
  close(): void;
  /** Number of keys loaded. */
  readonly count: number;
  /** Set when this start generated the key, so the operator can be told it once. */
  generatedKey?: string;
  /** Where the keys came from, for the start-up log (never the keys themselves). */
  source: string;
}

const hashedEntry = /^sha256:([0-9a-f]{64})$/i;

const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest();

/** The digest a key file line stands for: the hex after `sha256:`, or the digest of the key itself. */
function digestOfEntry(entry: string): Buffer {
  const hashed = hashedEntry.exec(entry);
  return hashed ? Buffer.from(hashed[1]!, 'hex') : digest(entry);
}

export interface CreatedApiKey {
  /** The secret to give to the client; shown once, never stored by this function when hashed. */
  key: string;
  /** The line that grants it in a key file: the key, or `sha256:<hex>` when hashed. */
  entry: string;
}

/**
 * Creates a new random key. With `file`, appends its entry to that key file (created with mode
 * 0600 if missing); a running service picks it up within a second.
 */
export function createApiKey(options: { file?: string; hashed?: boolean } = {}): CreatedApiKey {
  const key = newApiKey();
  const entry = options.hashed ? hashedKeyEntry(key) : key;
  if (options.file) addKeyToFile(options.file, entry);
  return { key, entry };
}

/** The key file line that grants `key` without holding it: `sha256:<hex digest>`. */
export function hashedKeyEntry(key: string): string {
  return `sha256:${digest(key).toString('hex')}`;
}

/** A new key: "cw_" and 192 random bits. */
export function newApiKey(): string {
  return `cw_${randomBytes(24).toString('base64url')}`;
}

/** The file that holds the generated key(s) when neither API_KEYS nor API_KEYS_FILE is set. */
export function defaultKeyFile(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'api-keys.txt');
}

/** Appends a key file line (a key or a hashed entry), creating the file (owner-only) when missing. */
export function addKeyToFile(file: string, entry: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  // A new file starts with a comment; an existing one may lack its final newline.
  const before =
    existing === undefined ? '# cardwright API keys: one per line, the key or sha256:<hex digest> of it\n' : existing && !existing.endsWith('\n') ? '\n' : '';
  fs.appendFileSync(file, `${before}${entry}\n`, { mode: 0o600 });
}

/** Keys revoked outside the key files (shared by replicas through Redis), by SHA-256 digest in hex. */
export interface Revocations {
  has(digestHex: string): boolean;
}

/** The SHA-256 digest of a key (or of a `sha256:` key file entry's key) in hex, as revocations name it. */
export function keyDigestHex(keyOrEntry: string): string {
  return digestOfEntry(keyOrEntry).toString('hex');
}

export function loadApiKeys(config: Config, log?: FastifyBaseLogger, revocations?: Revocations): ApiKeyStore {
  let generatedKey: string | undefined;
  let file = config.apiKeysFile;
  let source = config.apiKeysFile
    ? config.apiKeys.length > 0
      ? `API_KEYS and API_KEYS_FILE (${config.apiKeysFile})`
      : `API_KEYS_FILE (${config.apiKeysFile})`
    : 'API_KEYS';

  if (config.apiKeys.length === 0 && !config.apiKeysFile) {
    file = defaultKeyFile(config);
    if (!fs.existsSync(file)) generatedKey = createApiKey({ file }).key;
    source = file;
  }

  const readAll = (): Buffer[] => {
    const entries = [...config.apiKeys, ...(file ? readKeyFile(file) : [])];
    if (entries.length === 0) throw new Error(`No API key is configured: ${source} holds no keys. Add one key per line.`);
    return entries.map(digestOfEntry);
  };

  let digests = readAll();
  let lastRead = file ? modifiedAt(file) : 0;

  const store: ApiKeyStore = {
    source,
    generatedKey,
    get count() {
      return digests.length;
    },
    isValid(candidate) {
      return candidate ? matches(candidate) : false;
    },
    idOf(candidate) {
      return matches(candidate) ? digest(candidate).toString('hex').slice(0, 16) : undefined;
    },
    recognizes(candidate) {
      return isListed(digest(candidate));
    },
    reload() {
      try {
        digests = readAll();
        log?.info({ source, keys: digests.length }, 'API keys reloaded');
      } catch (error) {
        log?.error({ source, problem: (error as Error).message }, 'API keys not reloaded; the keys loaded before stay valid');
      }
    },
    close() {
      if (file) fs.unwatchFile(file, onFileChange);
    },
  };

  function isListed(wanted: Buffer): boolean {
    let match = false;
    for (const known of digests) match = timingSafeEqual(known, wanted) || match;
    return match;
  }

  function matches(candidate: string): boolean {
    const wanted = digest(candidate);
    return isListed(wanted) && !revocations?.has(wanted.toString('hex'));
  }

  // Polling the file's stat (not inotify) also sees an editor's atomic rename and network mounts.
  function onFileChange(current: fs.Stats): void {
    if (current.mtimeMs === lastRead) return;
    lastRead = current.mtimeMs;
    store.reload();
  }
  if (file) fs.watchFile(file, { interval: 500, persistent: false }, onFileChange);

  return store;
}

function modifiedAt(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function readKeyFile(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`API_KEYS_FILE ${file} cannot be read (${(error as NodeJS.ErrnoException).code}). Create it with one key per line.`);
  }
  const entries: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    // The line itself is not quoted in the message: it may be a secret.
    if (/^sha256:/i.test(line) && !hashedEntry.test(line)) {
      throw new Error(`${file} line ${index + 1}: a hashed key is sha256: followed by 64 hex digits.`);
    }
    if (!hashedEntry.test(line) && line.length < 16) {
      throw new Error(`${file} line ${index + 1}: a key must be at least 16 characters long (a short key is guessable).`);
    }
    entries.push(line);
  });
  return entries;
}
