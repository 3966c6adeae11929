/**
 * Reference-audio analysis benchmark (`npm run bench reference`): the node's analysis functions
 * in-process, with the installed models (`npm run models`), on real speech made with flite and
 * festival.
 * - validation of a 10 s clip (probe, decode, VAD, levels, pitch, the more-than-one-speaker
 *   check), as WAV (read in-process) and as MP3 (ffprobe and ffmpeg), p50 of 10 runs, against the
 *   0.5 s target;
 * - the more-than-one-speaker check on clips of one voice (two sentences) and of two voices (one
 *   sentence each), over flite, festival and espeak-ng voices: how many it flags of each;
 * - transcription real-time factor with the model loaded, and the word error rate of the
 *   recognizer on the same clips (known sentences). Results: bench/results/reference.json.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '@tts/common';
import { analysisForBench } from '@tts/inference-node/testing';
import { wordEdits, words } from './support.js';

const run = promisify(execFile);
const SENTENCES = [
  'Please call Stella and ask her to bring these things with her from the store.',
  'Six spoons of fresh snow peas and five thick slabs of blue cheese.',
  'We also need a small plastic snake and a big toy frog for the kids.',
  'She can scoop these things into three red bags and we will go meet her on Wednesday.',
  'The weather today is sunny with a light breeze from the west.',
  'The morning news reported heavy rain across the northern valley.',
  'Children played quietly in the garden while their parents talked.',
  'A large brown dog ran across the street and into the park.',
  'The train to the city leaves at seven in the morning.',
  'He opened the window to let some fresh air into the room.',
];

const dir = await mkdtemp(path.join(tmpdir(), 'tts-bench-ref-'));
const logger = createLogger('bench');
const analysis = await analysisForBench(logger);
const upload = async (file: string) => ({ header: { requestId: 'bench', filename: path.basename(file), contentType: 'audio/wav', sizeBytes: 0, transcribe: false }, file, sizeBytes: (await stat(file)).size, remove: async () => undefined });

// A 10 s clip: three sentences of flite slt.
const tenSec = path.join(dir, 'ten.wav');
await run('flite', ['-voice', 'slt', '-t', SENTENCES.slice(0, 3).join(' '), '-o', tenSec]);
const tenSecMp3 = path.join(dir, 'ten.mp3');
await run('ffmpeg', ['-loglevel', 'error', '-y', '-i', tenSec, '-b:a', '64k', tenSecMp3]);
const validateMs: number[] = [];
const validateMp3Ms: number[] = [];
let duration = 0;
for (let i = 0; i < 11; i++) {
  let started = performance.now();
  const a = await analysis.validate(await upload(tenSec));
  if (i > 0) validateMs.push(performance.now() - started);
  duration = a.audio?.durationSec ?? 0;
  started = performance.now();
  await analysis.validate(await upload(tenSecMp3));
  if (i > 0) validateMp3Ms.push(performance.now() - started);
}
validateMp3Ms.sort((a, b) => a - b);
validateMs.sort((a, b) => a - b);

// The speaker check: one voice saying two sentences, and every ordered pair of two voices.
const VOICES: Record<string, (text: string, file: string) => Promise<unknown>> = {
  'flite:slt': (t, f) => run('flite', ['-voice', 'slt', '-t', t, '-o', f]),
  'flite:rms': (t, f) => run('flite', ['-voice', 'rms', '-t', t, '-o', f]),
  'flite:awb': (t, f) => run('flite', ['-voice', 'awb', '-t', t, '-o', f]),
  'flite:kal16': (t, f) => run('flite', ['-voice', 'kal16', '-t', t, '-o', f]),
  festival: (t, f) => run('sh', ['-c', `echo "${t}" | text2wave -eval "(voice_cmu_us_slt_arctic_hts)" -o ${f}`]),
  'espeak:en-us': (t, f) => run('espeak-ng', ['-v', 'en-us', '-w', f, t]),
  'espeak:en-us+f3': (t, f) => run('espeak-ng', ['-v', 'en-us+f3', '-w', f, t]),
  'espeak:en+f2': (t, f) => run('espeak-ng', ['-v', 'en+f2', '-w', f, t]),
};
const sentenceFile = async (voice: string, i: number): Promise<string> => {
  const file = path.join(dir, `spk-${voice.replace(/[:+]/g, '-')}-${i}.wav`);
  await VOICES[voice]!(SENTENCES[i]!, file);
  return file;
};
const joined = async (a: string, b: string, name: string): Promise<string> => {
  const file = path.join(dir, name);
  await run('ffmpeg', ['-loglevel', 'error', '-y', '-i', a, '-i', b, '-filter_complex', '[0:a]aresample=16000[a];[1:a]aresample=16000[b];[a][b]concat=n=2:v=0:a=1', '-ac', '1', file]);
  return file;
};
const speakerCheck = { one: { clips: 0, flagged: 0, highest: 0 }, two: { clips: 0, flagged: 0, lowest: Infinity, missed: [] as string[] } };
const voices = Object.keys(VOICES);
for (const [k, v] of voices.entries()) {
  for (const i of [4, 6]) {
    const a = await analysis.validate(await upload(await joined(await sentenceFile(v, i), await sentenceFile(v, i + 1), `one-${k}-${i}.wav`)));
    speakerCheck.one.clips++;
    if (a.speakersEstimate > 1) speakerCheck.one.flagged++;
    speakerCheck.one.highest = Math.max(speakerCheck.one.highest, a.speakerChangeScore);
  }
  for (const [l, w] of voices.entries()) {
    if (l === k) continue;
    const a = await analysis.validate(await upload(await joined(await sentenceFile(v, 4), await sentenceFile(w, 7), `two-${k}-${l}.wav`)));
    speakerCheck.two.clips++;
    if (a.speakersEstimate > 1) speakerCheck.two.flagged++;
    else speakerCheck.two.missed.push(`${v} + ${w} (${a.speakerChangeScore.toFixed(2)})`);
    speakerCheck.two.lowest = Math.min(speakerCheck.two.lowest, a.speakerChangeScore);
  }
}

// Transcription: every sentence by festival (the most intelligible voice) and flite slt.
const wer: Record<string, { words: number; errors: number; audioSec: number; computeSec: number }> = {};
for (const voice of ['festival', 'flite:slt']) {
  const w = (wer[voice] = { words: 0, errors: 0, audioSec: 0, computeSec: 0 });
  for (const [i, sentence] of SENTENCES.entries()) {
    const file = path.join(dir, `${voice.replace(':', '-')}-${i}.wav`);
    if (voice === 'festival') await run('sh', ['-c', `echo "${sentence}" | text2wave -eval "(voice_cmu_us_slt_arctic_hts)" -o ${file}`]);
    else await run('flite', ['-voice', 'slt', '-t', sentence, '-o', file]);
    const t = await analysis.transcribe(await upload(file));
    w.words += words(sentence).length;
    w.errors += wordEdits(sentence, t.text);
    w.audioSec += t.durationSec;
    w.computeSec += t.computeSec;
  }
}
await analysis.close();
await rm(dir, { recursive: true, force: true });

const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const result = {
  validate_10s: { clip_sec: r3(duration), p50_ms: Math.round(validateMs[Math.floor(validateMs.length / 2)]!), max_ms: Math.round(validateMs[validateMs.length - 1]!), runs: validateMs.length, target_ms: 500 },
  validate_10s_mp3: { p50_ms: Math.round(validateMp3Ms[Math.floor(validateMp3Ms.length / 2)]!), max_ms: Math.round(validateMp3Ms[validateMp3Ms.length - 1]!), runs: validateMp3Ms.length, target_ms: 500 },
  speaker_check: {
    one_voice: { clips: speakerCheck.one.clips, flagged: speakerCheck.one.flagged, highest_score: r3(speakerCheck.one.highest) },
    two_voices: { clips: speakerCheck.two.clips, flagged: speakerCheck.two.flagged, lowest_score: r3(speakerCheck.two.lowest), missed: speakerCheck.two.missed },
  },
  transcription: Object.fromEntries(Object.entries(wer).map(([voice, w]) => [voice, { sentences: SENTENCES.length, words: w.words, wer: r3(w.errors / w.words), rtf: r3(w.computeSec / w.audioSec), audio_sec: r3(w.audioSec) }])),
  rtf_target: 0.25,
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/reference.json', import.meta.url), JSON.stringify(result, null, 2) + '\n');
