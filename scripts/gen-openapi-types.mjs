#!/usr/bin/env node
// Generates the facade's HTTP request and response types from facade/openapi/openapi.yaml with
// openapi-typescript into facade/src/generated/openapi.d.ts (DO NOT EDIT, not committed), so
// handlers never hand-copy a body shape. Run by `npm run codegen` (before build, type-check and tests).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'facade', 'src', 'generated', 'openapi.d.ts');
mkdirSync(join(root, 'facade', 'src', 'generated'), { recursive: true });
const cli = join(require.resolve('openapi-typescript/package.json'), '..', 'bin', 'cli.js');
execFileSync(process.execPath, [cli, join(root, 'facade', 'openapi', 'openapi.yaml'), '--default-non-nullable', 'false', '--output', out], { stdio: ['ignore', 'ignore', 'inherit'], cwd: root });
writeFileSync(out, '// DO NOT EDIT: generated from facade/openapi/openapi.yaml by `npm run codegen` (openapi-typescript).\n' + readFileSync(out, 'utf8'));
console.log('generated facade/src/generated/openapi.d.ts');
