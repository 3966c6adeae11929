/**
 * Word timings (issue 17, item 1): how well the engines' own word timings and the forced aligner's
 * (Vosk, services/inference-node/src/analysis/align.ts) agree on the same audio. For flite (slt),
 * espeak-ng (en-us) and festival (slt): 50 Harvard sentences rendered directly through the engine,
 * the engine's word timings (from its phone segments) and the aligner's timings of the same audio;
 * per engine the share of tokens both place, and the absolute differences of word starts and ends
 * (median, p90, mean, ms) with their signed means (a constant offset shows there): with the
 * aligner's delay correction (the figure), without it (how the correction was found), and over all
 * tokens the engine timed including those the aligner interpolated (what a client gets). The
 * difference of two timings is symmetric: "engine timings against the alignment" and "aligned
 * timings against the engine's phone timings" are one figure read both ways. A third reference
 * independent of both, for the sentence's outer edges only: speech onset and offset in the
 * signal's 10 ms energy envelope. Also what the aligner costs per second of audio (one recognizer
 * at a time, the node's libuv thread).
 *   npm run bench word-timing
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { createLogger, setLogSink } from '@tts/common';
import { ALIGNMENT_DELAY_SEC, ALIGNMENT_FRAME_SEC, alignmentTokens, createEspeakEngine, createFestivalEngine, createFliteEngine, matchWords, rms, speechModelsForBench, type AlignedWord, type PcmAudio, type SynthesisEngine, type WordTiming } from '@tts/inference-node/testing';
import { HARVARD_LISTS_1_TO_5 } from '../tests/support/text.js';
import { percentile, r } from './support.js';

setLogSink(() => undefined);
/** An envelope frame counts as speech above this share of the sentence's loudest frame (-34 dB). */
const ONSET_SHARE = 0.02;
const ENVELOPE_SEC = 0.01;

const ENGINES: readonly { name: string; voice: string; create(): SynthesisEngine }[] = [
  { name: 'flite', voice: 'flite:slt', create: () => createFliteEngine({ workers: 1 }) },
  { name: 'espeak-ng', voice: 'espeak:en-us', create: () => createEspeakEngine() },
  { name: 'festival', voice: 'festival:slt', create: () => createFestivalEngine({ processes: 1 }) },
];

/** Median, p90 and mean of absolute errors (ms) and the signed mean (ms). */
function stats(signed: readonly number[]): { n: number; medianMs: number; p90Ms: number; meanMs: number; signedMeanMs: number } {
  const abs = signed.map((e) => Math.abs(e));
  const mean = (v: readonly number[]): number => v.reduce((s, x) => s + x, 0) / Math.max(1, v.length);
  return { n: signed.length, medianMs: r(percentile(abs, 50) * 1000, 1), p90Ms: r(percentile(abs, 90) * 1000, 1), meanMs: r(mean(abs) * 1000, 1), signedMeanMs: r(mean(signed) * 1000, 1) };
}

/** Normalized word for matching the engine's names with the tokens. */
const norm = (w: string): string => w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');

/** First and last 10 ms frame whose RMS is above ONSET_SHARE of the loudest frame's, s. */
function speechEdges(audio: PcmAudio): { onset: number; offset: number } {
  const frame = Math.round(audio.sampleRate * ENVELOPE_SEC);
  const env: number[] = [];
  for (let at = 0; at + frame <= audio.samples.length; at += frame) env.push(rms(audio.samples.subarray(at, at + frame)));
  const threshold = Math.max(...env) * ONSET_SHARE;
  const first = env.findIndex((e) => e > threshold);
  const last = env.length - 1 - [...env].reverse().findIndex((e) => e > threshold);
  return { onset: first * ENVELOPE_SEC, offset: (last + 1) * ENVELOPE_SEC };
}

/** Signed differences (aligned minus engine, s) of the starts and ends of tokens both timed; `all` includes tokens the aligner did not cover. */
function differences(aligned: readonly AlignedWord[], engineOf: readonly (WordTiming | undefined)[], all: boolean): { starts: number[]; ends: number[] } {
  const starts: number[] = [];
  const ends: number[] = [];
  aligned.forEach((a, i) => {
    const e = engineOf[i];
    if (e === undefined || !(all || a.covered)) return;
    starts.push(a.start - e.start);
    ends.push(a.end - e.end);
  });
  return { starts, ends };
}

const speech = await speechModelsForBench(createLogger('bench'));
const results: Record<string, unknown>[] = [];
for (const spec of ENGINES) {
  const engine = spec.create();
  await engine.load();
  let tokens = 0;
  let engineTimed = 0;
  let alignedCovered = 0;
  let both = 0;
  let audioSec = 0;
  let alignMs = 0;
  const sets = { corrected: { starts: [] as number[], ends: [] as number[] }, raw: { starts: [] as number[], ends: [] as number[] }, allTokens: { starts: [] as number[], ends: [] as number[] } };
  const edges = { engineOnset: [] as number[], alignedOnset: [] as number[], engineOffset: [] as number[], alignedOffset: [] as number[] };
  const worst: { sentence: string; word: string; engine: WordTiming; aligned: AlignedWord }[] = [];
  const engineMissed: string[] = [];
  for (const sentence of HARVARD_LISTS_1_TO_5) {
    const [out] = await engine.synthesize([{ text: sentence, voice: spec.voice, speed: 1 }]);
    if (!out?.words) throw new Error(`${spec.name} reported no word timings for "${sentence}"`);
    const t = performance.now();
    const aligned = await speech.alignWords(out.audio, sentence);
    alignMs += performance.now() - t;
    const raw = await speech.alignWords(out.audio, sentence, { delaySec: 0 });
    audioSec += out.audio.samples.length / out.audio.sampleRate;
    const expected = alignmentTokens(sentence);
    tokens += expected.length;
    alignedCovered += aligned.filter((w) => w.covered).length;
    // The engine's words are normally the tokens in order (engines/testing.ts assertWordTimings);
    // matched by edit distance, a token the engine did not name is not timed by it.
    // A word whose end is not after its start is a fault of the engine's timings, not timed either.
    const engineOf = matchWords(expected.map(norm), out.words.map((w) => norm(w.word))).map((m) => (m?.same === true ? out.words![m.heard]! : undefined)).map((w) => (w !== undefined && w.end > w.start ? w : undefined));
    engineTimed += engineOf.filter((w) => w !== undefined).length;
    engineOf.forEach((w, i) => {
      if (w === undefined) engineMissed.push(`${expected[i - 1] ?? ''} [${expected[i]!}] ${expected[i + 1] ?? ''}`.trim());
    });
    both += aligned.filter((a, i) => a.covered && engineOf[i] !== undefined).length;
    for (const [set, words, all] of [[sets.corrected, aligned, false], [sets.raw, raw, false], [sets.allTokens, aligned, true]] as const) {
      const d = differences(words, engineOf, all);
      set.starts.push(...d.starts);
      set.ends.push(...d.ends);
    }
    aligned.forEach((a, i) => {
      const e = engineOf[i];
      if (e !== undefined && a.covered) worst.push({ sentence, word: e.word, engine: e, aligned: a });
    });
    const edge = speechEdges(out.audio);
    const [first, last] = [out.words[0], out.words[out.words.length - 1]];
    if (first && last && aligned.length > 0) {
      edges.engineOnset.push(first.start - edge.onset);
      edges.alignedOnset.push(aligned[0]!.start - edge.onset);
      edges.engineOffset.push(last.end - edge.offset);
      edges.alignedOffset.push(aligned[aligned.length - 1]!.end - edge.offset);
    }
  }
  await engine.close();
  const summary = (d: { starts: number[]; ends: number[] }): Record<string, unknown> => ({ boundaries: stats([...d.starts, ...d.ends]), starts: stats(d.starts), ends: stats(d.ends) });
  const boundaries = stats([...sets.corrected.starts, ...sets.corrected.ends]);
  const off = (w: { engine: WordTiming; aligned: AlignedWord }): number => Math.max(Math.abs(w.aligned.start - w.engine.start), Math.abs(w.aligned.end - w.engine.end));
  worst.sort((x, y) => off(y) - off(x));
  const row = {
    engine: spec.name,
    voice: spec.voice,
    sentences: HARVARD_LISTS_1_TO_5.length,
    tokens,
    engineTimedShare: r(engineTimed / tokens, 3),
    engineMissed,
    alignedCoveredShare: r(alignedCovered / tokens, 3),
    coveredByBothShare: r(both / tokens, 3),
    audioSec: r(audioSec, 1),
    ...summary(sets.corrected),
    targetMedianMs: 30,
    targetMet: boundaries.medianMs <= 30,
    uncorrected: summary(sets.raw),
    allTokensEngineTimed: summary(sets.allTokens),
    edgesAgainstSignal: { engineOnset: stats(edges.engineOnset), alignedOnset: stats(edges.alignedOnset), engineOffset: stats(edges.engineOffset), alignedOffset: stats(edges.alignedOffset) },
    alignMsPerAudioSec: r(alignMs / audioSec, 1),
    largestDifferences: worst.slice(0, 5).map((w) => ({ sentence: w.sentence, word: w.word, engine: [r(w.engine.start, 3), r(w.engine.end, 3)], aligned: [r(w.aligned.start, 3), r(w.aligned.end, 3)] })),
  };
  results.push(row);
  console.log(`${spec.name}: covered by both ${r(row.coveredByBothShare * 100, 1)} %, boundaries median ${boundaries.medianMs} ms, p90 ${boundaries.p90Ms} ms, mean ${boundaries.meanMs} ms, signed ${boundaries.signedMeanMs} ms (uncorrected median ${stats([...sets.raw.starts, ...sets.raw.ends]).medianMs} ms); align ${row.alignMsPerAudioSec} ms per audio s`);
}
await speech.close?.();

mkdirSync('bench/results', { recursive: true });
writeFileSync(
  'bench/results/word-timing.json',
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: { cpus: availableParallelism(), model: cpus()[0]?.model ?? 'unknown', loadavg: loadavg().map((l) => r(l)) },
      aligner: { model: 'vosk-model-small-en-us-android', frameSec: ALIGNMENT_FRAME_SEC, delayCorrectionSec: ALIGNMENT_DELAY_SEC },
      reading: 'aligned minus engine, seconds -> ms; |a - e| is the error of either against the other',
      engines: results,
    },
    null,
    2,
  )}\n`,
);
