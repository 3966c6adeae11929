/**
 * Sentences of one request rendered side by side (TTS_SENTENCES_IN_FLIGHT): with two festival
 * processes, a paragraph is rendered with two sentences at once after the first, and the output is
 * exactly what rendering one sentence after the other gives (same samples, same order); the first
 * sentence renders alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setLogSink } from '@tts/common';
import { start, type RunningNode } from '../server.js';
import { planSynthesis, renderAudio, type PipelineDeps, type SynthesisJob, type SynthesisStats } from './pipeline.js';

setLogSink(() => undefined);

const PARAGRAPH =
  'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. ' +
  'It is easy to tell the depth of a well. These days a chicken leg is a rare dish. Rice is often served in round bowls.';

describe('sentences in flight', () => {
  let node: RunningNode;

  before(async () => {
    // Festival (two warm processes): its audio is the same call after call, so the two ways of
    // rendering can be compared sample by sample (libflite's is not).
    node = await start({ host: '127.0.0.1', port: 0, nodeId: 'in-flight-test', engines: ['festival'], defaultVoice: 'festival:slt', festivalProcesses: 2, warmup: false });
  });

  after(async () => {
    await node.stop();
  });

  /** Renders the paragraph; resolves to its pieces and the most sentences the engine ran at once. */
  const render = async (sentencesInFlight: number): Promise<{ pieces: Float32Array[]; busiest: number[] }> => {
    const deps: PipelineDeps = { ...node.context.deps, sentencesInFlight };
    const job: SynthesisJob = { requestId: 'in-flight', text: PARAGRAPH, voice: 'festival:slt', engine: '', speed: 1, format: 'pcm', sampleRate: 0, language: '', rawText: false, streaming: false };
    const plan = planSynthesis(job, deps);
    assert.ok(plan.chunks.length >= 5, `${plan.chunks.length} sentences`);
    const stats = { characters: 0, sentences: 0, audioSeconds: 0, computeSeconds: 0, timeToFirstAudioMs: 0, queueMs: 0, encodeMs: 0, maxBatchSize: 1, watermarkMs: 0, watermarkSetupMs: 0, loadMs: 0 } satisfies SynthesisStats;
    const pieces: Float32Array[] = [];
    // Engine slots in use, sampled every millisecond, per piece awaited.
    const busiest: number[] = [0];
    const sampler = setInterval(() => (busiest[busiest.length - 1] = Math.max(busiest.at(-1)!, deps.admission.inFlight())), 1);
    try {
      for await (const piece of renderAudio(plan, deps, stats)) {
        pieces.push(piece.samples);
        busiest.push(0);
      }
    } finally {
      clearInterval(sampler);
    }
    return { pieces, busiest };
  };

  it('renders two sentences at once after the first, and the same audio as one at a time', async () => {
    const one = await render(1);
    const two = await render(2);
    assert.equal(two.pieces.length, one.pieces.length);
    for (const [i, piece] of two.pieces.entries()) assert.deepEqual(piece, one.pieces[i], `piece ${i}: same samples`);
    assert.ok(Math.max(...one.busiest) <= 1, `one at a time: ${one.busiest.join(',')}`);
    assert.equal(two.busiest[0], 1, `the first sentence renders alone: ${two.busiest.join(',')}`);
    assert.ok(Math.max(...two.busiest) === 2, `two at once afterwards: ${two.busiest.join(',')}`);
  });
});
