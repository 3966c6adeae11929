#!/usr/bin/env node
// Generates the HTTP request and response types from facade/openapi/openapi.yaml with
// openapi-typescript, for the two packages that speak the API: the facade (handlers never hand-copy
// a body shape) and the web application (it never hand-copies an answer's shape). One run, the same
// file written into facade/src/generated/ and web/src/generated/ (DO NOT EDIT, not committed): the
// web package may not import the facade package. Run by `npm run codegen` (before build,
// type-check and tests).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const root = new URL('..', import.meta.url).pathname;
/** The packages that get the types, each into <package>/src/generated/openapi.d.ts. */
const TARGETS = ['facade', 'web'];
const cli = join(require.resolve('openapi-typescript/package.json'), '..', 'bin', 'cli.js');
const scratch = mkdtempSync(join(tmpdir(), 'tts-openapi-'));
const generated = join(scratch, 'openapi.d.ts');
let text;
try {
  execFileSync(process.execPath, [cli, join(root, 'facade', 'openapi', 'openapi.yaml'), '--default-non-nullable', 'false', '--output', generated], { stdio: ['ignore', 'ignore', 'inherit'], cwd: root });
  text = '// DO NOT EDIT: generated from facade/openapi/openapi.yaml by `npm run codegen` (openapi-typescript).\n' + readFileSync(generated, 'utf8');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
for (const target of TARGETS) {
  const dir = join(root, target, 'src', 'generated');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'openapi.d.ts'), text);
  console.log(`generated ${target}/src/generated/openapi.d.ts`);
}
