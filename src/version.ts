// The package's version and licence, read from package.json, for `cardwright --version`, the MCP handshake and the OpenAPI document.
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from './paths.js';

const packageJson = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8'));

export const packageVersion: string = packageJson.version;
/** The SPDX identifier of the package's licence, for the OpenAPI document. */
export const packageLicense: string = packageJson.license;
