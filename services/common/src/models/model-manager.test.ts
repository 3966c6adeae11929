/**
 * The model manager against a local HTTP hub that serves the fixture voice: good files,
 * corrupted files, 401 without a token, interrupted transfers (resumed with Range), servers that
 * ignore Range, and offline mode.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { makePiperFixtures, type FixtureVoice } from '@tts/fixtures';
import { TtsError } from '../errors/tts-error.js';
import { parseCatalogue, type CatalogueVoice } from './catalogue.js';
import { hubFileUrl } from './hub-client.js';
import { ModelManager, parseModelDirs, type InstallProgress } from './model-manager.js';

const REPO = 'test-org/piper-voices';
const REVISION = 'v1.0.0';
const TOKEN = 'hf_test_token';

interface HubBehaviour {
  requireToken: boolean;
  /** Serve these paths with one byte flipped. */
  corrupt: Set<string>;
  /** Cut the connection halfway through this many responses (per path). */
  interruptions: Map<string, number>;
  ignoreRange: boolean;
}

interface SeenRequest {
  readonly path: string;
  readonly range: string | undefined;
  readonly authorization: string | undefined;
}

let root = '';
let fixture: FixtureVoice;
let files: Map<string, Buffer>;
let server: Server;
let baseUrl = '';
let behaviour: HubBehaviour;
let seen: SeenRequest[] = [];
let voice: CatalogueVoice;
let dirCounter = 0;

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://hub');
  const prefix = `/${REPO}/resolve/${REVISION}/`;
  const filePath = decodeURIComponent(url.pathname.slice(prefix.length));
  seen.push({ path: filePath, range: req.headers.range, authorization: req.headers.authorization });
  if (behaviour.requireToken && req.headers.authorization !== `Bearer ${TOKEN}`) {
    res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
    return;
  }
  const original = url.pathname.startsWith(prefix) ? files.get(filePath) : undefined;
  if (original === undefined) {
    res.writeHead(404).end('not found');
    return;
  }
  let body = original;
  if (behaviour.corrupt.has(filePath)) {
    body = Buffer.from(original);
    body[body.length >> 1] = body[body.length >> 1]! ^ 0xff;
  }
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  let start = 0;
  if (range !== null && !behaviour.ignoreRange) {
    start = Number(range[1]);
    if (start >= body.length) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    res.writeHead(206, { 'content-length': body.length - start, 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` });
  } else {
    res.writeHead(200, { 'content-length': body.length });
  }
  const rest = body.subarray(start);
  const cuts = behaviour.interruptions.get(filePath) ?? 0;
  if (cuts > 0) {
    behaviour.interruptions.set(filePath, cuts - 1);
    res.write(rest.subarray(0, rest.length >> 1));
    // Cut once the client has written some of it to its partial file (a fixed pause was too short
    // for a busy machine: nothing written, so nothing to resume).
    void partialWritten(path.basename(filePath)).then(() => res.socket?.destroy());
    return;
  }
  res.end(rest);
}

/** Resolves once a partial download of `name` under the test's folders holds bytes (or after 10 s). */
async function partialWritten(name: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    for (const entry of await readdir(root, { recursive: true })) {
      if (entry.endsWith(`${name}.part`) && (await stat(path.join(root, entry)).catch(() => undefined))?.size) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function manager(options: Partial<ConstructorParameters<typeof ModelManager>[0]> = {}): ModelManager {
  const dir = path.join(root, `models-${++dirCounter}`);
  return new ModelManager({ modelDirs: [dir], catalogue: [voice], hubUrl: baseUrl, hubToken: TOKEN, retryDelayMs: 1, ...options });
}

function isCode(code: string) {
  return (error: unknown): boolean => error instanceof TtsError && error.code === code;
}

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'model-manager-'));
  fixture = (await makePiperFixtures(path.join(root, 'fixtures'))).tiny;
  const onnx = await readFile(fixture.onnxPath);
  const json = await readFile(fixture.configPath);
  files = new Map([
    ['en/en_US/fixture/low/en_US-fixture_tiny-low.onnx', onnx],
    ['en/en_US/fixture/low/en_US-fixture_tiny-low.onnx.json', json],
  ]);
  voice = {
    id: 'piper:en_US-fixture_tiny-low', engine: 'piper', name: 'en_US-fixture_tiny-low', language: 'en-US', quality: 'low',
    source: { repo: REPO, revision: REVISION },
    files: [...files].map(([p, data]) => ({ path: p, sizeBytes: data.length, sha256: sha256(data) })),
  };
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
});

beforeEach(() => {
  behaviour = { requireToken: false, corrupt: new Set(), interruptions: new Map(), ignoreRange: false };
  seen = [];
});

describe('model hub URLs and the search path', () => {
  it('builds {base}/{repo}/resolve/{revision}/{path} URLs', () => {
    assert.equal(
      hubFileUrl('https://hub.example/', 'rhasspy/piper-voices', 'v1.0.0', 'en/en_US/lessac/medium/en_US-lessac-medium.onnx'),
      'https://hub.example/rhasspy/piper-voices/resolve/v1.0.0/en/en_US/lessac/medium/en_US-lessac-medium.onnx',
    );
    assert.equal(hubFileUrl('http://h', 'o/r', 'main', 'a b.json'), 'http://h/o/r/resolve/main/a%20b.json');
  });

  it('parses TTS_MODEL_DIR as a search path', () => {
    assert.deepEqual(parseModelDirs('/a:/b:/a', '/fallback'), ['/a', '/b']);
    assert.deepEqual(parseModelDirs(' /a , /c:/b ', '/fallback'), ['/a', '/c', '/b']);
    assert.deepEqual(parseModelDirs(undefined, '/fallback'), ['/fallback']);
    assert.deepEqual(parseModelDirs('  ', 'rel'), [path.resolve('rel')]);
  });

  it('rejects catalogue entries with unsafe names or bad checksums', () => {
    const good = { engine: 'piper', name: 'x', language: 'en', quality: 'low', source: { repo: 'o/r', revision: 'main' }, files: [{ path: 'a/x.onnx', sha256: null }] };
    assert.equal(parseCatalogue([good], 'c.json')[0]!.id, 'piper:x');
    assert.throws(() => parseCatalogue([{ ...good, name: '../evil' }], 'c.json'), /c\.json\[0\]/);
    assert.throws(() => parseCatalogue([{ ...good, files: [{ path: 'a/..', sha256: null }] }], 'c.json'), /plain file name/);
    assert.throws(() => parseCatalogue([{ ...good, files: [{ path: 'a/x', sha256: 'abc' }] }], 'c.json'), /sha256/);
  });
});

describe('model manager', () => {
  it('installs a voice from the hub: verified files, atomic folder, progress, bearer token', async () => {
    const m = manager();
    const progress: InstallProgress[] = [];
    const installed = await m.install(voice.id, { onProgress: (p) => progress.push(p) });
    assert.equal(installed.dir, path.join(m.installDir, 'piper', 'en_US-fixture_tiny-low'));
    for (const [i, [, data]] of [...files].entries()) assert.deepEqual(await readFile(installed.files[i]!), data);
    const record = JSON.parse(await readFile(path.join(installed.dir, 'install.json'), 'utf8')) as { files: { sha256: string; verified: boolean }[] };
    assert.deepEqual(record.files.map((f) => f.sha256), voice.files.map((f) => f.sha256));
    assert.ok(record.files.every((f) => f.verified));
    assert.ok(seen.every((r) => r.authorization === `Bearer ${TOKEN}`));
    const total = [...files.values()].reduce((n, d) => n + d.length, 0);
    assert.ok(progress.length >= 2);
    assert.equal(progress.at(-1)!.receivedBytes, total);
    assert.equal(progress.at(-1)!.totalBytes, total);
    assert.ok(progress.every((p, i) => i === 0 || p.receivedBytes >= progress[i - 1]!.receivedBytes));
    assert.deepEqual((await readdir(m.installDir)).sort(), ['piper'], 'no staging or temp folders are left');
    assert.deepEqual(await readdir(path.join(m.installDir, 'piper')), ['en_US-fixture_tiny-low']);
    assert.deepEqual(await m.locate(voice.id), installed);
    const [listed] = await m.list();
    assert.deepEqual(listed!.installed, installed);
    assert.equal(listed!.urls[0], `${baseUrl}/${REPO}/resolve/${REVISION}/${voice.files[0]!.path}`);
    // Installing again is a no-op that uses no network.
    seen = [];
    assert.deepEqual(await m.ensure(voice.id), installed);
    assert.equal(seen.length, 0);
  });

  it('refuses a corrupted file with MODEL_CHECKSUM_MISMATCH and installs nothing', async () => {
    behaviour.corrupt.add(voice.files[0]!.path);
    const m = manager();
    await assert.rejects(m.install(voice.id), isCode('MODEL_CHECKSUM_MISMATCH'));
    assert.equal(await m.locate(voice.id), null);
    const staging = path.join(m.installDir, '.partial', 'piper--en_US-fixture_tiny-low');
    assert.deepEqual(await readdir(staging), [], 'the bad download is discarded');
    // The next try downloads afresh (no Range) and succeeds once the hub serves the right bytes.
    behaviour.corrupt.clear();
    seen = [];
    await m.install(voice.id);
    assert.equal(seen[0]!.range, undefined);
  });

  it('fails with MODEL_HUB_UNAUTHORIZED on 401 without a token, and succeeds with it', async () => {
    behaviour.requireToken = true;
    const anonymous = manager({ hubToken: undefined });
    await assert.rejects(anonymous.install(voice.id), isCode('MODEL_HUB_UNAUTHORIZED'));
    assert.equal(seen.length, 1, 'a 401 is not retried');
    assert.equal(seen[0]!.authorization, undefined);
    const withToken = manager();
    assert.ok((await withToken.install(voice.id)).files.length === 2);
  });

  it('resumes an interrupted transfer with a Range request', async () => {
    const big = voice.files[0]!;
    behaviour.interruptions.set(big.path, 1);
    const m = manager();
    const installed = await m.install(voice.id);
    assert.deepEqual(await readFile(installed.files[0]!), files.get(big.path));
    const requests = seen.filter((r) => r.path === big.path);
    assert.equal(requests.length, 2);
    assert.equal(requests[0]!.range, undefined);
    const offset = Number(/^bytes=(\d+)-$/.exec(requests[1]!.range ?? '')?.[1]);
    assert.ok(offset > 0 && offset <= big.sizeBytes! / 2, `resumed at ${requests[1]!.range}`);
  });

  it('keeps the partial file when attempts run out and resumes it on the next call', async () => {
    const big = voice.files[0]!;
    behaviour.interruptions.set(big.path, 1);
    const m = manager({ maxAttempts: 1 });
    await assert.rejects(m.install(voice.id), isCode('MODEL_DOWNLOAD_FAILED'));
    const part = path.join(m.installDir, '.partial', 'piper--en_US-fixture_tiny-low', 'en_US-fixture_tiny-low.onnx.part');
    const kept = (await stat(part)).size;
    assert.ok(kept > 0);
    assert.equal(await m.locate(voice.id), null);
    seen = [];
    await m.install(voice.id);
    assert.equal(seen[0]!.range, `bytes=${kept}-`);
    assert.deepEqual(await readFile(path.join(m.installDir, 'piper', 'en_US-fixture_tiny-low', 'en_US-fixture_tiny-low.onnx')), files.get(big.path));
  });

  it('starts over when the server ignores Range and sends the whole file', async () => {
    behaviour.interruptions.set(voice.files[0]!.path, 1);
    behaviour.ignoreRange = true;
    const installed = await manager().install(voice.id);
    assert.deepEqual(await readFile(installed.files[0]!), files.get(voice.files[0]!.path));
    const requests = seen.filter((r) => r.path === voice.files[0]!.path);
    assert.equal(requests.length, 2);
    assert.match(requests[1]!.range ?? '', /^bytes=\d+-$/, 'the client asked to resume; the server sent 200 instead');
  });

  it('shares one download between concurrent installs of a voice', async () => {
    const m = manager();
    const [a, b] = await Promise.all([m.install(voice.id), m.install(voice.id)]);
    assert.deepEqual(a, b);
    assert.equal(seen.length, 2, 'one request per file');
  });

  it('offline: never touches the network, finds voices on the search path, refuses to install', async () => {
    const first = path.join(root, `offline-${++dirCounter}`);
    const second = path.join(root, `offline-${++dirCounter}`);
    const m = new ModelManager({ modelDirs: [first, second], catalogue: [voice], hubUrl: baseUrl, offline: true });
    await assert.rejects(m.install(voice.id), isCode('MODEL_NOT_INSTALLED'));
    await assert.rejects(m.ensure(voice.id), isCode('MODEL_NOT_INSTALLED'));
    // Files copied by hand into the second directory of the search path count as installed.
    await mkdir(second, { recursive: true });
    await copyFile(fixture.onnxPath, path.join(second, 'en_US-fixture_tiny-low.onnx'));
    await copyFile(fixture.configPath, path.join(second, 'en_US-fixture_tiny-low.onnx.json'));
    const found = await m.ensure(voice.id);
    assert.equal(found.dir, second);
    assert.equal(seen.length, 0, 'no request reached the hub');
  });

  it('refuses ids that are not in the catalogue', async () => {
    await assert.rejects(manager().install('piper:nope'), isCode('TTS_VOICE_NOT_FOUND'));
    await assert.rejects(manager().locate('piper:nope'), isCode('TTS_VOICE_NOT_FOUND'));
  });
});
