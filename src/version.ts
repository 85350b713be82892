// The package's version, read from package.json, for `cardwright --version` and the MCP handshake.
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from './paths.js';

export const packageVersion: string = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')).version;
