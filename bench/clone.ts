/**
 * Voice cloning benchmark (`npm run bench clone`, about 2 minutes): an inference node in-process
 * (flite and espeak-ng voices as candidates) clones references of speakers it has and of speakers
 * it does not have (festival's HTS voice, espeak-ng variants outside the candidates), and reports
 * the voice chosen, the speaker similarity to the reference before and after adaptation (Vosk
 * x-vectors, cosine), the pitch and pace changes, and the time a clone request takes.
 * Results: bench/results/clone.json.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { AudioEncoding } from '@tts/proto/synthesis';
import { callUnary, closeAllClients, setLogSink, synthesizerClient } from '@tts/common';
import { start } from '@tts/inference-node';

setLogSink(() => undefined);
const run = promisify(execFile);
const dir = await mkdtemp(path.join(tmpdir(), 'tts-bench-clone-'));
const REF_TEXT = 'The weather today is sunny with a light breeze. Children played quietly in the garden while their parents talked.';
const references: { name: string; inCandidates: boolean; make: (file: string) => Promise<unknown> }[] = [
  { name: 'flite rms', inCandidates: true, make: (f) => run('flite', ['-voice', 'rms', '-t', REF_TEXT, '-o', f]) },
  { name: 'flite slt', inCandidates: true, make: (f) => run('flite', ['-voice', 'slt', '-t', REF_TEXT, '-o', f]) },
  { name: 'festival slt (HTS)', inCandidates: false, make: (f) => run('sh', ['-c', `echo "${REF_TEXT}" | text2wave -eval "(voice_cmu_us_slt_arctic_hts)" -o ${f}`]) },
  { name: 'espeak-ng en-us+f3', inCandidates: false, make: (f) => run('espeak-ng', ['-v', 'en-us+f3', '-w', f, REF_TEXT]) },
  { name: 'espeak-ng en-gb-scotland', inCandidates: false, make: (f) => run('espeak-ng', ['-v', 'en-gb-scotland', '-w', f, REF_TEXT]) },
  { name: 'flite awb, pitch +4 st', inCandidates: false, make: async (f) => { await run('flite', ['-voice', 'awb', '-t', REF_TEXT, '-o', `${f}.raw.wav`]); await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', `${f}.raw.wav`, '-af', 'rubberband=pitch=1.26', f]); } },
];
const node = await start({ host: '127.0.0.1', port: 0, engines: ['flite', 'espeak'], defaultVoice: 'flite:slt', warmup: false, dataDir: dir, uploadTmpDir: path.join(dir, 'up') });
const client = synthesizerClient(node.address);
const results: Record<string, unknown>[] = [];
try {
  for (const [i, ref] of references.entries()) {
    const file = path.join(dir, `ref-${i}.wav`);
    await ref.make(file);
    const audio = await readFile(file);
    const started = performance.now();
    const res = await callUnary(client.synthesize.bind(client), {
      requestId: `bench-clone-${i}`, tenantId: '', tenantWeight: 0,
      speech: { text: 'Please call Stella and ask her to bring these things with her from the store.', voice: '', engine: '', speed: 1, encoding: AudioEncoding.AUDIO_ENCODING_WAV, sampleRate: 0, language: '', instructions: '', rawText: false, watermarkPayload: 0, clone: { referenceAudio: audio, referenceFilename: 'ref.wav', referenceId: '' }, wordTimings: false, bitrateKbps: 0, lexicon: [] },
    }, { timeoutMs: 600_000 });
    const ms = performance.now() - started;
    const c = res.clone!;
    const r3 = (x: number): number => Math.round(x * 1000) / 1000;
    results.push({ reference: ref.name, reference_among_candidates: ref.inCandidates, voice: c.voice, similarity_before: r3(c.similarityBefore), similarity_after: r3(c.similarityAfter), pitch_semitones: r3(c.pitchSemitones), speed: r3(c.speed), request_ms: Math.round(ms) });
    console.log(JSON.stringify(results[results.length - 1]));
  }
} finally {
  await node.stop(2000);
  closeAllClients();
  await rm(dir, { recursive: true, force: true });
}
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/clone.json', import.meta.url), JSON.stringify({ candidates: 'flite slt/rms/awb/kal16, espeak-ng (4 English variants)', note: 'the first request profiles every candidate voice (kept under DATA_DIR afterwards)', results }, null, 2) + '\n');
