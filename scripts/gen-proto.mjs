#!/usr/bin/env node
// Generates TypeScript for proto/**/*.proto into proto/gen/ (the @tts/proto package) with ts-proto
// (grpc-js services). `--check` regenerates into a temporary folder and fails when proto/gen/ differs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, mkdirSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = new URL('..', import.meta.url).pathname;
const protoDir = join(root, 'proto');
const check = process.argv.includes('--check');

function walk(dir, ext) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p, ext) : p.endsWith(ext) ? [p] : [];
  });
}

function generate(outDir) {
  mkdirSync(outDir, { recursive: true });
  const protos = walk(join(protoDir, 'tts'), '.proto').map((p) => relative(protoDir, p));
  const protoc = require.resolve('protoc/protoc.cjs');
  const plugin = join(root, 'node_modules', '.bin', 'protoc-gen-ts_proto');
  execFileSync(process.execPath, [
    protoc,
    `--plugin=protoc-gen-ts_proto=${plugin}`,
    `--ts_proto_out=${outDir}`,
    '--ts_proto_opt=outputServices=grpc-js,env=node,esModuleInterop=true,importSuffix=.js,useOptionals=none,forceLong=number,oneof=unions-value',
    `-I${protoDir}`,
    ...protos,
  ], { stdio: 'inherit', cwd: root });
}

const header = '// DO NOT EDIT: generated from proto/ by `npm run proto` (ts-proto).\n';

function stamp(dir) {
  for (const f of walk(dir, '.ts')) {
    const text = readFileSync(f, 'utf8');
    if (!text.startsWith(header)) writeFileSync(f, header + text);
  }
}

const genDir = join(protoDir, 'gen');
if (check) {
  if (!existsSync(genDir)) {
    console.error('proto/gen/ is missing: run `npm run proto`');
    process.exit(1);
  }
  const tmp = mkdtempSync(join(tmpdir(), 'proto-check-'));
  generate(tmp);
  const a = walk(tmp, '.ts').map((f) => relative(tmp, f)).sort();
  const b = walk(genDir, '.ts').map((f) => relative(genDir, f)).sort();
  const drift = JSON.stringify(a) !== JSON.stringify(b) ||
    a.some((f) => header + readFileSync(join(tmp, f), 'utf8') !== readFileSync(join(genDir, f), 'utf8'));
  rmSync(tmp, { recursive: true, force: true });
  if (drift) {
    console.error('proto/gen/ drifted from proto/: run `npm run proto`');
    process.exit(1);
  }
  console.log('proto/gen/ matches proto/');
} else {
  rmSync(genDir, { recursive: true, force: true });
  generate(genDir);
  stamp(genDir);
  console.log('generated', walk(genDir, '.ts').length, 'files into proto/gen/');
}
