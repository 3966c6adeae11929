/** The platform version, read where it is written: the root package.json. */
import { readFileSync } from 'node:fs';

/** `version` of the root package.json. */
export const PLATFORM_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
