import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rms } from '../../audio/dsp.js';
import { durationSec } from '../../audio/pcm.js';
import { TtsError } from '@tts/common';
import { createFestivalEngine, type FestivalEngine, type FestivalTransport } from './index.js';
import { FestivalDecoder, schemeString, stuffPayload } from './protocol.js';
import { wordTimings } from './festival-process.js';
import { liveGroupMembers } from './process-group.js';
import { isTtsError } from '@tts/common/testing';
import { HELLO, PARAGRAPH, assertWordTimings, audioOf, festivalServers } from '../testing.js';

/** Harvard sentences (list 1): the texts compared across transports. */
const HARVARD = [
  'The birch canoe slid on the smooth planks.',
  'Glue the sheet to the dark blue background.',
  "It's easy to tell the depth of a well.",
  'These days a chicken leg is a rare dish.',
  'Rice is often served in round bowls.',
];
/** Live (non-zombie) processes whose process group is `pgid`. */
const groupMembers = (pgid: number): number[] => liveGroupMembers(pgid) ?? assert.fail('no /proc to list processes');

/** The engine's private work directory (TypeScript privates are plain properties at run time). */
function workDirOf(engine: FestivalEngine): string {
  const dir = (engine as unknown as { workDir: string | null }).workDir;
  assert.ok(dir, 'the engine is loaded');
  return dir;
}

/** festival's own temporary files (`/tmp/est_<pid>_<n>`) of process `pid`. */
function estFilesOf(pid: number): string[] {
  return readdirSync(tmpdir()).filter((f) => f.startsWith(`est_${pid}_`));
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('festival engine (pipe transport, the default)', () => {
  let engine: FestivalEngine;

  before(async () => {
    engine = createFestivalEngine({ processes: 2 });
    await engine.load();
  });

  after(async () => {
    await engine.close();
  });

  it('serves the SLT HTS voice from two warm processes, with a private work directory', () => {
    assert.equal(statSync(workDirOf(engine)).mode & 0o777, 0o700);
    assert.deepEqual(
      engine.voices().map((v) => [v.id, v.gender, v.language, v.sampleRate]),
      [['festival:slt', 'female', 'en-US', 32_000]],
    );
    assert.equal(festivalServers(engine).length, 2);
  });

  it('speaks a short text, warm (real-time factor well under 0.5)', async () => {
    const started = performance.now();
    const [out] = await engine.synthesize([{ text: HELLO, voice: 'festival:slt', speed: 1 }]);
    const elapsed = (performance.now() - started) / 1000;
    assert.ok(out);
    assert.equal(out.speedApplied, true);
    assert.equal(out.audio.sampleRate, 32_000);
    const sec = durationSec(out.audio);
    assert.ok(sec > 1 && sec < 5, `${sec} s`);
    assert.ok(rms(out.audio.samples) > 0.02, `rms ${rms(out.audio.samples)}`);
    assert.ok(elapsed / sec < 0.5, `RTF ${elapsed / sec}: no start-up cost per request`);
  });

  it('applies speed natively through the HTS rate', async () => {
    const normal = await audioOf(engine, { text: HELLO, voice: 'festival:slt', speed: 1 });
    const [fast] = await engine.synthesize([{ text: HELLO, voice: 'festival:slt', speed: 2 }]);
    assert.ok(fast);
    assert.equal(fast.speedApplied, true);
    const ratio = durationSec(fast.audio) / durationSec(normal);
    assert.ok(ratio > 0.35 && ratio < 0.7, `ratio ${ratio}`);
    const [tooFast] = await engine.synthesize([{ text: HELLO, voice: 'festival:slt', speed: 4 }]);
    assert.equal(tooFast?.speedApplied, false);
    assert.equal(tooFast?.audio.samples.length, normal.samples.length);
  });

  it('speaks text that tries to break out of the Scheme string, and survives', async () => {
    const pids = festivalServers(engine).map((p) => p.pid);
    for (const text of ['") (quit) ("', 'back\\slash \\") (quit) (\\" ft_StUfF_key', 'line\nbreak "quoted"']) {
      const audio = await audioOf(engine, { text, voice: 'festival:slt', speed: 1 });
      assert.ok(durationSec(audio) > 0.5, `${JSON.stringify(text)} was spoken`);
    }
    assert.deepEqual(festivalServers(engine).map((p) => p.pid), pids, 'no server quit or was replaced');
  });

  it('runs 8 parallel requests on its processes, all succeeding, and leaves no file behind', async () => {
    const outs = await Promise.all(Array.from({ length: 8 }, (_, i) => audioOf(engine, { text: `Request number ${i + 1}. ${HELLO}`, voice: 'festival:slt', speed: 1 })));
    for (const a of outs) assert.ok(rms(a.samples) > 0.02 && durationSec(a) > 1);
    assert.deepEqual(readdirSync(workDirOf(engine)), [], 'every wave file was removed');
    for (const { pid } of festivalServers(engine)) assert.deepEqual(estFilesOf(pid), [], 'festival wrote no /tmp/est_* file');
  });

  it('fails the request of a server killed mid-request and replaces the server', async () => {
    const inFlight = audioOf(engine, { text: PARAGRAPH, voice: 'festival:slt', speed: 1 });
    await waitFor(() => festivalServers(engine).some((p) => p.busy), 5_000);
    const victim = festivalServers(engine).find((p) => p.busy)!.pid;
    process.kill(victim, 'SIGKILL');
    await assert.rejects(inFlight, (err: unknown) => {
      assert.ok(err instanceof TtsError);
      assert.equal(err.code, 'TTS_ENGINE_FAILED');
      assert.equal(err.spec.retryable, true);
      return true;
    });
    const audio = await audioOf(engine, { text: HELLO, voice: 'festival:slt', speed: 1 });
    assert.ok(rms(audio.samples) > 0.02);
    await waitFor(() => festivalServers(engine).length === 2, 20_000);
    assert.ok(!festivalServers(engine).some((p) => p.pid === victim));
    assert.deepEqual(groupMembers(victim), [], 'the killed server left no process behind');
  });

  it('replaces a hung process: its request fails after the request timeout', async () => {
    const hung = createFestivalEngine({ processes: 1, requestTimeoutMs: 3_000 });
    await hung.load();
    try {
      const [proc] = festivalServers(hung);
      assert.ok(proc);
      process.kill(proc.pid, 'SIGSTOP');
      const started = performance.now();
      await assert.rejects(audioOf(hung, { text: HELLO, voice: 'festival:slt', speed: 1 }), isTtsError('TTS_ENGINE_FAILED'));
      assert.ok(performance.now() - started >= 2_900);
      await waitFor(() => groupMembers(proc.pid).length === 0, 5_000);
      const audio = await audioOf(hung, { text: HELLO, voice: 'festival:slt', speed: 1 });
      assert.ok(rms(audio.samples) > 0.02);
      assert.ok(!festivalServers(hung).some((p) => p.pid === proc.pid), 'a new process serves');
    } finally {
      await hung.close();
    }
  });

  it('rejects a cancelled request before and while it waits', async () => {
    await assert.rejects(engine.synthesize([{ text: HELLO, voice: 'festival:slt', speed: 1, signal: AbortSignal.abort() }]), isTtsError('TTS_CANCELLED'));
    const busy = [0, 1].map(() => audioOf(engine, { text: HELLO, voice: 'festival:slt', speed: 1 }));
    const controller = new AbortController();
    const waiting = engine.synthesize([{ text: HELLO, voice: 'festival:slt', speed: 1, signal: controller.signal }]);
    controller.abort();
    await assert.rejects(waiting, isTtsError('TTS_CANCELLED'));
    assert.equal((await Promise.all(busy)).length, 2);
  });

  it('rejects unknown voices and bad input with stable codes', async () => {
    await assert.rejects(engine.synthesize([{ text: HELLO, voice: 'festival:kal', speed: 1 }]), (err: unknown) => {
      assert.ok(err instanceof TtsError);
      assert.equal(err.code, 'TTS_VOICE_NOT_FOUND');
      assert.deepEqual(err.loc, ['body', 'voice']);
      return true;
    });
    await assert.rejects(engine.synthesize([{ text: '', voice: 'festival:slt', speed: 1 }]), isTtsError('TTS_TEXT_EMPTY'));
  });

  it('reports the real-time factor of a 60-word paragraph', async (t) => {
    const started = performance.now();
    const audio = await audioOf(engine, { text: PARAGRAPH, voice: 'festival:slt', speed: 1 });
    const rtf = (performance.now() - started) / 1000 / durationSec(audio);
    t.diagnostic(`festival:slt ${PARAGRAPH.split(/\s+/).length} words, ${durationSec(audio).toFixed(1)} s audio: RTF ${rtf.toFixed(3)}`);
    assert.ok(durationSec(audio) > 10);
  });
});

describe('festival transports: same voice, same words', () => {
  const engines = new Map<FestivalTransport, FestivalEngine>();

  before(async () => {
    for (const transport of ['pipe', 'server'] as const) {
      const engine = createFestivalEngine({ processes: 1, transport });
      await engine.load();
      engines.set(transport, engine);
    }
  });

  after(async () => {
    for (const engine of engines.values()) await engine.close();
  });

  it("reports each word's timing from festival's segments, as written, the same through both transports", async () => {
    const text = 'In 1999, Dr. Smith paid $20 for 3 apples.';
    for (const speed of [1, 1.5]) {
      const [piped] = await engines.get('pipe')!.synthesize([{ text, voice: 'festival:slt', speed }]);
      const [served] = await engines.get('server')!.synthesize([{ text, voice: 'festival:slt', speed }]);
      assert.deepEqual(assertWordTimings(piped!, text.split(' ')), assertWordTimings(served!, text.split(' ')), `${speed}x`);
    }
  });

  it("times a token festival splits into a word without segments (man's: man + 's, the z given to man) by its segments", async () => {
    const text = "The soft cushion broke the man's fall.";
    for (const transport of ['pipe', 'server'] as const) {
      const [out] = await engines.get(transport)!.synthesize([{ text, voice: 'festival:slt', speed: 1 }]);
      const words = assertWordTimings(out!, text.split(' '));
      const mans = words[5]!;
      assert.ok(mans.start === words[4]!.end && mans.end === words[6]!.start && mans.end - mans.start > 0.2, `${transport}: man's ${mans.start}-${mans.end} s`);
    }
    // A token of segmentless words alone: a zero-length timing at the previous token's end, in order.
    assert.deepEqual(wordTimings('0.1 0.4 1 man\n- - 2 \'s\n0.4 0.7 3 fall\n'), [
      { word: 'man', start: 0.1, end: 0.4 },
      { word: "'s", start: 0.4, end: 0.4 },
      { word: 'fall', start: 0.4, end: 0.7 },
    ]);
  });

  it('gives sample-identical audio through the pipe and the former server transport', async () => {
    const inputs = [...HARVARD.map((text) => ({ text, speed: 1 })), { text: HARVARD[0]!, speed: 1.5 }, { text: 'The birch canoe slid on the', speed: 1 }];
    for (const { text, speed } of inputs) {
      const before = await audioOf(engines.get('server')!, { text, voice: 'festival:slt', speed });
      const after = await audioOf(engines.get('pipe')!, { text, voice: 'festival:slt', speed });
      const again = await audioOf(engines.get('pipe')!, { text, voice: 'festival:slt', speed });
      assert.equal(after.sampleRate, before.sampleRate);
      assert.ok(durationSec(before) > 0.5, `${text}: spoken`);
      assert.equal(after.samples.length, before.samples.length, `${text} at ${speed}x: same length`);
      assert.deepEqual(after.samples, before.samples, `${text} at ${speed}x: same samples`);
      assert.deepEqual(again.samples, after.samples, `${text}: deterministic`);
    }
  });

  // The pipe transport exists because the server transport lost ~40 ms per reply to Nagle and
  // delayed ACKs on its TCP socket (bench festival-first-audio measures the time): here, that the
  // pipe transport's festival has no socket at all, and the server's has.
  it('talks to festival over its standard streams, with no TCP socket (the server transport listens on one)', async () => {
    await audioOf(engines.get('pipe')!, { text: 'Hi.', voice: 'festival:slt', speed: 1 });
    /** Descriptors of the engine's festival process that are TCP sockets. */
    const tcpSockets = (engine: FestivalEngine): string[] => {
      const [proc] = festivalServers(engine);
      assert.ok(proc);
      const tcpInodes = new Set(
        ['tcp', 'tcp6'].flatMap((table) =>
          readFileSync(`/proc/${proc.pid}/net/${table}`, 'utf8').split('\n').slice(1).map((line) => line.trim().split(/\s+/)[9]).filter((x): x is string => x !== undefined),
        ),
      );
      return readdirSync(`/proc/${proc.pid}/fd`)
        .map((fd) => /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${proc.pid}/fd/${fd}`))?.[1])
        .filter((inode): inode is string => inode !== undefined && tcpInodes.has(inode));
    };
    assert.deepEqual(tcpSockets(engines.get('pipe')!), [], 'the pipe transport');
    assert.ok(tcpSockets(engines.get('server')!).length >= 1, 'the server transport listens on TCP');
  });

  it('keeps festival\'s own temporary files in the private work directory, and no wave behind', async () => {
    await audioOf(engines.get('pipe')!, { text: HELLO, voice: 'festival:slt', speed: 1 });
    for (const [transport, engine] of engines) {
      const [proc] = festivalServers(engine);
      assert.ok(proc);
      const environ = readFileSync(`/proc/${proc.pid}/environ`, 'utf8').split('\0');
      assert.ok(environ.includes(`TMPDIR=${workDirOf(engine)}`), `${transport}: TMPDIR is the work directory`);
      assert.deepEqual(estFilesOf(proc.pid), [], `${transport}: no /tmp/est_* file`);
    }
    assert.deepEqual(readdirSync(workDirOf(engines.get('pipe')!)), [], 'the pipe transport removed its waves');
  });

});

describe('festival engine lifecycle', () => {
  for (const [transport, members] of [['pipe', 1], ['server', 2]] as const) {
    it(`close() kills every ${transport} process${transport === 'server' ? ' and its connection children' : ''} and removes the work directory`, async () => {
      const engine = createFestivalEngine({ processes: 1, transport });
      await engine.load();
      const dir = workDirOf(engine);
      const [proc] = festivalServers(engine);
      assert.ok(proc);
      assert.ok(groupMembers(proc.pid).length >= members, transport === 'server' ? 'the server and the child serving our connection' : 'the festival process');
      await engine.close();
      assert.deepEqual(groupMembers(proc.pid), []);
      assert.equal(statSync(dir, { throwIfNoEntry: false }), undefined);
    });
  }

  it('leaves no orphans when its parent process is SIGKILLed', async () => {
    const entry = fileURLToPath(new URL('./index.ts', import.meta.url));
    const support = fileURLToPath(new URL('../testing.ts', import.meta.url));
    const script = `const { createFestivalEngine } = await import(${JSON.stringify(entry)});
      const { festivalServers } = await import(${JSON.stringify(support)});
      const e = createFestivalEngine({ processes: 1 });
      await e.load();
      console.log(JSON.stringify({ pids: festivalServers(e).map((p) => p.pid), dir: e.workDir }));
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--conditions=@tts/source', '--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const { pids, dir } = await new Promise<{ pids: number[]; dir: string }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.trim()) as { pids: number[]; dir: string });
      });
      child.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
    });
    assert.equal(pids.length, 1);
    assert.ok(groupMembers(pids[0]!).length >= 1);
    child.kill('SIGKILL');
    await waitFor(() => groupMembers(pids[0]!).length === 0, 5_000);
    // Nobody is left to remove the private directory of a SIGKILLed process: it holds no file.
    assert.deepEqual(readdirSync(dir), []);
    rmSync(dir, { recursive: true });
  });

  it('load() rejects with a clear error when festival is missing', async () => {
    const engine = createFestivalEngine({ processes: 1, binary: '/nonexistent/festival' });
    await assert.rejects(engine.load(), (err: unknown) => {
      assert.ok(err instanceof TtsError);
      assert.equal(err.code, 'TTS_ENGINE_UNAVAILABLE');
      assert.match(err.message, /cannot run \/nonexistent\/festival/);
      return true;
    });
    assert.deepEqual(engine.voices(), []);
    await engine.close();
  });

  for (const transport of ['pipe', 'server'] as const) {
    it(`load() rejects when the voice is not installed (${transport})`, async () => {
      const engine = createFestivalEngine({ processes: 1, voice: 'no_such_voice', transport });
      await assert.rejects(engine.load(), (err: unknown) => err instanceof TtsError && err.code === 'TTS_ENGINE_UNAVAILABLE' && /voice_no_such_voice/.test(err.message));
    });
  }

  it('rejects an unknown transport', () => {
    assert.throws(() => createFestivalEngine({ transport: 'carrier-pigeon' as FestivalTransport }), RangeError);
  });
});

describe('festival protocol', () => {
  it('escapes quotes, backslashes and control characters in Scheme strings', () => {
    assert.equal(schemeString('say "hi" \\ now'), '"say \\"hi\\" \\\\ now"');
    assert.equal(schemeString('a\nb\u0000c'), '"a b c"');
  });

  it('decodes stuffed payloads split at any byte, as festival encodes them', () => {
    const payloads = [Buffer.from('plain'), Buffer.from('has ft_StUfF_key inside'), Buffer.from('fft_StUfF_key and ft_StUfF_key twice'), Buffer.from([0, 255, 0x66, 0x74, 0x58, 0x21])];
    const stream = Buffer.concat([
      ...payloads.map((p, i) => Buffer.concat([Buffer.from(i % 2 === 0 ? 'WV\n' : 'LP\n'), stuffPayload(p)])),
      Buffer.from('OK\nER\n'),
    ]);
    for (const step of [1, 3, 7, stream.length]) {
      const decoder = new FestivalDecoder();
      const messages = [];
      for (let i = 0; i < stream.length; i += step) messages.push(...decoder.push(stream.subarray(i, i + step)));
      assert.deepEqual(
        messages.map((m) => ('data' in m ? [m.type, m.data.toString('latin1')] : [m.type])),
        [...payloads.map((p, i) => [i % 2 === 0 ? 'WV' : 'LP', p.toString('latin1')]), ['OK'], ['ER']],
        `chunks of ${step}`,
      );
    }
  });

  it('rejects an unexpected reply', () => {
    assert.throws(() => new FestivalDecoder().push(Buffer.from('XX\n')), isTtsError('TTS_ENGINE_FAILED'));
  });
});
