// Picks the storage driver the configuration asks for. The S3 driver (and the AWS SDK behind it)
// is loaded only when it is used: it is a sizeable part of what a start would otherwise load.
import type { Config } from '../../config.js';
import { LocalStorage } from './local-storage.js';
import type { Storage } from './storage.js';

export async function createStorage(config: Config): Promise<Storage> {
  if (config.storage === 's3') {
    if (!config.s3) throw new Error('STORAGE=s3 without S3 settings: loadConfig() should have refused this configuration');
    const { S3Storage } = await import('./s3-storage.js');
    return new S3Storage(config.s3);
  }
  // Not ready once the disk could not hold what one request may store (README.md "Limits").
  return new LocalStorage(config.dataDir, config.publicBaseUrl, config.renderLimits?.maxBytes);
}
