/**
 * Version of the platform and of its interface description: the `version` of the repository's
 * root package.json, the one place it is written (the OpenAPI document's `info.version` is set
 * from it when the facade loads the document).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Name the platform reports in health and version answers. */
export const SERVICE_NAME = 'tts-platform';

/** The platform's root package.json: the nearest one above this module that declares workspaces. */
function rootManifest(): { version?: unknown } {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { workspaces?: unknown; version?: unknown };
      if (manifest.workspaces !== undefined) return manifest;
    }
    if (path.dirname(dir) === dir) throw new Error(`no ${SERVICE_NAME} package.json with workspaces above ${fileURLToPath(import.meta.url)}`);
  }
}

/** Version of the platform (semver). */
export const VERSION: string = String(rootManifest().version);
