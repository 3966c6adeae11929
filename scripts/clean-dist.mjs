#!/usr/bin/env node
// Removes every workspace package's dist/ before a build, so no file of a renamed or deleted
// source outlives it (tsc -b only ever adds and overwrites).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const dir of workspaces) rmSync(join(root, dir, 'dist'), { recursive: true, force: true });
