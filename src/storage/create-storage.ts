// Picks the storage driver the configuration asks for.
import type { Config } from '../config.js';
import { LocalStorage } from './local-storage.js';
import { S3Storage } from './s3-storage.js';
import type { Storage } from './storage.js';

export function createStorage(config: Config): Storage {
  if (config.storage === 's3') {
    if (!config.s3) throw new Error('STORAGE=s3 without S3 settings: loadConfig() should have refused this configuration');
    return new S3Storage(config.s3);
  }
  return new LocalStorage(config.dataDir, config.publicBaseUrl);
}
