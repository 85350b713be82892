// `cardwright keys create`: makes a new API key and adds it where the service reads its keys
// (API_KEYS_FILE, else DATA_DIR/api-keys.txt), then prints it.
import { createApiKey, defaultKeyFile } from '../http/api-keys.js';
import { loadConfig } from '../config.js';
import { parseCommandLine, UsageError } from './command-line.js';
import { keysCommand } from './commands.js';

export function runKeys(args: string[]): void {
  const { values, positionals } = parseCommandLine(keysCommand, args);
  if (positionals.length !== 1 || positionals[0] !== 'create') {
    throw new UsageError(`keys needs the action "create"; got ${positionals.length === 0 ? 'none' : positionals.join(' ')}.`);
  }
  const config = loadConfig();
  if (config.apiKeys.length > 0 && !config.apiKeysFile) {
    // With API_KEYS set the service reads no key file, so a key saved in one would never work.
    throw new Error('API_KEYS is set, so the service accepts only the keys listed there. Add a key to API_KEYS, or set API_KEYS_FILE to a file for new keys.');
  }
  const file = config.apiKeysFile ?? defaultKeyFile(config);
  const { key } = createApiKey({ file, hashed: values.hashed === true });
  process.stdout.write(`${key}\n`);
  // The service polls its key file (see api-keys.ts), so the key works without a restart.
  const saved = values.hashed ? 'Its SHA-256 digest is saved' : 'Saved';
  process.stderr.write(`${saved} in ${file}; a running service accepts it within a second.\n`);
}
