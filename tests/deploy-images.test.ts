/**
 * The container images' recipe (deploy/docker/Dockerfile), checked without building: no image can
 * be built on the machines the tests run on (no registry access). Every base is pinned by digest;
 * every COPY source exists in the build context (and is not dockerignored) or was made by an
 * earlier stage; each target runs as a non-root user with a HEALTHCHECK and starts a file that
 * `npm run build` produces (mapped from the package's exports and tsconfig.build.json); the node
 * images install the run-time packages scripts/setup.sh installs; the GPU image installs
 * onnxruntime's CUDA provider; nothing secret is baked in. The HEALTHCHECK script itself runs
 * against real servers.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import { startGrpcServer } from '@tts/common';

const run = promisify(execFile);
const DOCKERFILE = 'deploy/docker/Dockerfile';
const HEALTHCHECK = 'deploy/docker/healthcheck.mjs';
/** The images the chart deploys, by Dockerfile target. */
const TARGETS = ['facade', 'scheduler', 'inference-node', 'inference-node-gpu'] as const;
/** Variables that carry secrets: never set in an image. */
const SECRET_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'SCHEDULER_DATABASE_URL', 'TTS_ADMIN_KEY', 'TTS_WATERMARK_KEYS', 'TTS_HUB_TOKEN_KEY', 'TTS_CHALLENGE_SECRET', 'TTS_SLIP_PROVIDER_KEY', 'TTS_MODEL_HUB_TOKEN'];

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}
interface Stage {
  readonly name: string;
  readonly base: string;
  readonly instructions: Instruction[];
}

/** The Dockerfile's stages: continuation lines joined, comments dropped. */
function parseDockerfile(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      assert.ok(m, `FROM ${args}`);
      stages.push({ base: m[1]!, name: m[2] ?? `#${stages.length}`, instructions: [] });
    } else if (keyword.toUpperCase() !== 'ARG' || stages.length > 0) {
      assert.ok(stages.length > 0, `${keyword} before the first FROM`);
      stages.at(-1)!.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

const stages = parseDockerfile(readFileSync(DOCKERFILE, 'utf8'));
const stageByName = new Map(stages.map((s) => [s.name, s]));

/** A stage and the stages it is built on, nearest first. */
function lineage(stage: Stage): Stage[] {
  const parent = stageByName.get(stage.base);
  return parent && parent !== stage ? [stage, ...lineage(parent)] : [stage];
}
const instructionsOf = (stage: Stage, keyword: string): Instruction[] => lineage(stage).flatMap((s) => s.instructions.filter((i) => i.keyword === keyword));
/** The last value an instruction takes in a stage's lineage (USER, WORKDIR, CMD, ...). */
const lastOf = (stage: Stage, keyword: string): string | undefined => lineage(stage).flatMap((s) => [...s.instructions].reverse()).find((i) => i.keyword === keyword)?.args;

/** .dockerignore patterns (top-level paths and `**` prefixes only, as the file uses). */
const ignored = readFileSync('.dockerignore', 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
function isIgnored(file: string): boolean {
  const parts = path.normalize(file).split(path.sep);
  return ignored.some((pattern) => {
    if (pattern.startsWith('**/')) {
      const tail = pattern.slice(3);
      const re = new RegExp(`^${tail.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
      return parts.some((p) => re.test(p));
    }
    const re = new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
    return parts.some((_, i) => re.test(parts.slice(0, i + 1).join('/')));
  });
}

/** COPY's flags, sources and destination. */
function copyParts(args: string): { from: string | undefined; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith('--'));
  const rest = words.filter((w) => !w.startsWith('--'));
  const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
  return { from, sources: rest.slice(0, -1), dest: rest.at(-1)! };
}

/** The JSON-array form of CMD / HEALTHCHECK CMD. */
function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const parsed = JSON.parse(json) as unknown;
  assert.ok(Array.isArray(parsed) && parsed.every((a) => typeof a === 'string'), `exec form: ${args}`);
  return parsed as string[];
}

describe('container images (deploy/docker/Dockerfile)', () => {
  test('every base image is a pinned digest or an earlier stage', () => {
    const earlier = new Set<string>();
    for (const stage of stages) {
      if (!earlier.has(stage.base)) assert.match(stage.base, /^[a-z0-9.\-/]+:[\w.-]+@sha256:[0-9a-f]{64}$/, `stage ${stage.name}: FROM ${stage.base} is pinned by tag and digest`);
      earlier.add(stage.name);
    }
    for (const target of TARGETS) assert.ok(stageByName.has(target), `target ${target}`);
  });

  test('every COPY source is in the build context or an earlier stage, never dockerignored', () => {
    const defined = new Set<string>();
    for (const stage of stages) {
      for (const copy of stage.instructions.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')) {
        assert.equal(copy.keyword, 'COPY', 'COPY only (ADD fetches or unpacks implicitly)');
        const { from, sources, dest } = copyParts(copy.args);
        assert.ok(sources.length > 0 && dest, copy.args);
        if (from === undefined) {
          for (const source of sources) {
            assert.ok(existsSync(source), `${stage.name}: COPY ${source} exists in the repository`);
            if (source !== '.') assert.ok(!isIgnored(source), `${stage.name}: COPY ${source} is not dockerignored`);
          }
        } else {
          assert.ok(defined.has(from), `${stage.name}: COPY --from=${from} names an earlier stage`);
          const origin = stageByName.get(from)!;
          // The path was made in that stage: under its WORKDIR or named by one of its instructions.
          const text = lineage(origin).flatMap((s) => s.instructions.map((i) => i.args)).join('\n');
          for (const source of sources) {
            const workdirs = instructionsOf(origin, 'WORKDIR').map((w) => w.args);
            assert.ok(workdirs.some((w) => source === w || source.startsWith(`${w}/`)) || text.includes(source), `${stage.name}: ${source} exists in stage ${from}`);
          }
        }
      }
      defined.add(stage.name);
    }
    // What the build needs is in the context: the workspaces' manifests and the lock file.
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { workspaces: string[] };
    const copied = stages.flatMap((s) => s.instructions.filter((i) => i.keyword === 'COPY').flatMap((i) => copyParts(i.args).sources));
    for (const ws of manifest.workspaces) assert.ok(copied.includes(`${ws}/package.json`), `${ws}/package.json copied before npm ci`);
    for (const secret of ['data', '.env', 'node_modules', '.git']) assert.ok(isIgnored(secret), `${secret} is dockerignored`);
  });

  test('each target runs its package\'s built entry point as a non-root user, with a HEALTHCHECK', () => {
    for (const target of TARGETS) {
      const stage = stageByName.get(target)!;
      const user = lastOf(stage, 'USER');
      assert.ok(user !== undefined, `${target}: USER set`);
      assert.ok(!/^(root|0)(:|$)/.test(user), `${target}: USER ${user} is not root`);
      assert.match(user, /^\d+:\d+$/, `${target}: numeric USER (runAsNonRoot can verify it)`);
      assert.equal(lastOf(stage, 'WORKDIR'), '/app');
      assert.equal(instructionsOf(stage, 'ENTRYPOINT').length, 0, `${target}: no ENTRYPOINT, CMD only`);

      const cmd = execForm(lastOf(stage, 'CMD')!);
      assert.equal(cmd[0], 'node');
      const entry = cmd[1]!;
      // The entry is a package's "./main" export as built: <package>/dist/main.js.
      const m = /^(.+)\/dist\/(.+)\.js$/.exec(entry);
      assert.ok(m, `${target}: ${entry} is a dist/ file`);
      const [, pkgDir, rel] = m;
      const pkg = JSON.parse(readFileSync(`${pkgDir}/package.json`, 'utf8')) as { exports: Record<string, { default?: string; '@tts/source'?: string }> };
      assert.equal(pkg.exports['./main']?.default, `./dist/${rel}.js`, `${target}: ${entry} is the package's ./main export`);
      const tsconfig = JSON.parse(readFileSync(`${pkgDir}/tsconfig.build.json`, 'utf8')) as { compilerOptions: { rootDir: string; outDir: string }; include: string[] };
      assert.deepEqual([tsconfig.compilerOptions.rootDir, tsconfig.compilerOptions.outDir], ['src', 'dist']);
      assert.ok(existsSync(`${pkgDir}/src/${rel}.ts`), `${target}: ${pkgDir}/src/${rel}.ts compiles to ${entry}`);
      const root = JSON.parse(readFileSync('tsconfig.build.json', 'utf8')) as { references: { path: string }[] };
      assert.ok(root.references.some((r) => r.path === `${pkgDir}/tsconfig.build.json`), `${target}: npm run build (tsc -b tsconfig.build.json) builds ${pkgDir}`);
      // The built tree the target copies is the build stage's WORKDIR, where npm run build ran.
      const appCopy = instructionsOf(stage, 'COPY').map((c) => copyParts(c.args)).find((c) => c.dest === '/app');
      assert.ok(appCopy?.from, `${target}: copies the built tree to /app`);
      const built = lineage(stageByName.get(appCopy.from)!);
      assert.ok(built.some((s) => s.instructions.some((i) => i.keyword === 'RUN' && i.args.includes('npm run build'))), `${target}: its tree went through npm run build`);
      assert.deepEqual(appCopy.sources, [lastOf(stageByName.get(appCopy.from)!, 'WORKDIR')]);

      const health = lastOf(stage, 'HEALTHCHECK');
      assert.ok(health !== undefined, `${target}: HEALTHCHECK`);
      const probe = execForm(health.slice(health.indexOf('CMD')));
      assert.deepEqual(probe.slice(0, 2), ['node', HEALTHCHECK], `${target}: the healthcheck script`);
      assert.equal(probe[2], target === 'facade' ? 'http' : 'grpc');
      const exposed = instructionsOf(stage, 'EXPOSE').flatMap((e) => e.args.split(/\s+/));
      assert.ok(exposed.includes(probe[3]!), `${target}: checks its exposed port ${probe[3]}`);
    }
    assert.ok(!isIgnored(HEALTHCHECK) && statSync(HEALTHCHECK).isFile());
  });

  test('writable paths are DATA_DIR and /tmp only, declared as volumes; nothing secret is set', () => {
    const runtime = stageByName.get('runtime')!;
    const env = instructionsOf(runtime, 'ENV').map((e) => e.args).join(' ');
    assert.match(env, /DATA_DIR=\/var\/lib\/tts\b/);
    assert.match(env, /TTS_UPLOAD_TMP_DIR=\/tmp\//);
    assert.deepEqual(JSON.parse(lastOf(runtime, 'VOLUME')!), ['/var/lib/tts', '/tmp']);
    for (const stage of stages) {
      for (const i of stage.instructions.filter((x) => x.keyword === 'ENV' || x.keyword === 'ARG')) {
        for (const name of SECRET_VARIABLES) assert.ok(!new RegExp(`(^|\\s)${name}=`).test(i.args), `${stage.name}: ${i.keyword} ${name}`);
      }
    }
  });

  test('node images install what scripts/setup.sh installs for run time; the GPU image adds CUDA and the provider', () => {
    const setup = readFileSync('scripts/setup.sh', 'utf8');
    const runtimePackages = /RUNTIME_PACKAGES=\(([^)]*)\)/.exec(setup)![1]!.split(/\s+/).filter((p) => p !== '' && !p.endsWith('-dev'));
    const apt = (name: string): string => instructionsOf(stageByName.get(name)!, 'RUN').map((r) => r.args).join(' ');
    for (const target of ['inference-node', 'inference-node-gpu']) {
      const installed = apt(target);
      for (const p of runtimePackages) assert.match(installed, new RegExp(`apt-get install[^&]*\\s${p.replace(/[+.]/g, '\\$&')}(\\s|$)`), `${target}: ${p}`);
      assert.ok(instructionsOf(stageByName.get(target)!, 'COPY').some((c) => copyParts(c.args).from === 'models'), `${target}: analysis models`);
    }
    for (const target of ['facade', 'scheduler']) assert.doesNotMatch(apt(target), /apt-get install/, `${target}: no engines`);
    const gpu = stageByName.get('inference-node-gpu')!;
    assert.match(apt('inference-node-gpu'), /cuda-libraries-12-\d+/);
    assert.match(apt('inference-node-gpu'), /libcudnn9-cuda-12/);
    const appGpu = instructionsOf(gpu, 'COPY').map((c) => copyParts(c.args)).find((c) => c.dest === '/app')!;
    assert.equal(appGpu.from, 'app-gpu');
    assert.match(apt('app-gpu'), /ONNXRUNTIME_NODE_INSTALL=cuda12 npm rebuild onnxruntime-node/);
    assert.match(instructionsOf(gpu, 'ENV').map((e) => e.args).join(' '), /TTS_PIPER_PROVIDERS=cuda,cpu/);
    // The CPU image keeps npm ci's skip: no CUDA download.
    assert.match(apt('build'), /ONNXRUNTIME_NODE_INSTALL=skip npm ci/);
    assert.equal(instructionsOf(stageByName.get('inference-node')!, 'COPY').map((c) => copyParts(c.args)).find((c) => c.dest === '/app')!.from, 'app');
  });

  test('the HEALTHCHECK script tells a serving process from one that is not', async () => {
    const probe = async (...args: string[]): Promise<number> => {
      try {
        await run(process.execPath, [HEALTHCHECK, ...args], { timeout: 10_000 });
        return 0;
      } catch (err) {
        return (err as { code?: number }).code ?? -1;
      }
    };
    const grpc = await startGrpcServer({ host: '127.0.0.1', port: 0, services: [] });
    try {
      assert.equal(await probe('grpc', String(grpc.port)), 0, 'SERVING');
      grpc.setServing('NOT_SERVING');
      assert.equal(await probe('grpc', String(grpc.port)), 1, 'NOT_SERVING');
    } finally {
      await grpc.stop(0);
    }
    assert.equal(await probe('grpc', String(grpc.port)), 1, 'nothing listening');

    let status = 200;
    const http: Server = createServer((req, res) => {
      res.statusCode = req.url === '/api/health' ? status : 404;
      res.end('{}');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const port = String((http.address() as { port: number }).port);
    try {
      assert.equal(await probe('http', port), 0, '200');
      status = 503;
      assert.equal(await probe('http', port), 1, '503');
    } finally {
      await new Promise((resolve) => http.close(resolve));
    }
    assert.equal(await probe('http', port), 1, 'nothing listening');
    assert.equal(await probe('tcp', port), 1, 'unknown mode');
  });
});
