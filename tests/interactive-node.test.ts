/**
 * Interactive synthesis on a real node (issue 31, item 1): Synthesizer.SynthesizeInteractive over
 * gRPC on loopback, flite:slt rendering for real, the audio decoded by ffmpeg. Text arriving two
 * words at a time is spoken from its first clause on, before the sentence is complete; a flush
 * speaks a half sentence; a cancel stops the context's audio and frees the engine slot at once (the
 * node's own admission counters); several contexts share one call with their own audio, word times
 * and final message; an SSML error, a full buffer, a sixth context, an unknown context each get an
 * error message and the session goes on; a session counts in the node's reported load and its
 * session places.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { credentials } from '@grpc/grpc-js';
import { callUnary, closeAllClients } from '@tts/common';
import { AudioEncoding, ContextOutcome, SynthesizerClient } from '@tts/proto/synthesis';
import { start as startNode, type RunningNode } from '@tts/inference-node';
import { inspectClip, assertSpeech } from './support/audio.js';
import { sessionSpeech, SessionClient } from './support/interactive.js';
import { waitFor } from './support/platform.js';
import './support/test-logs.js';

const MAX_SESSIONS = 4;

describe('SynthesizeInteractive on a node', { timeout: 240_000 }, () => {
  let node: RunningNode;
  let client: SynthesizerClient;
  let dataDir: string;
  const open: SessionClient[] = [];

  const session = (): SessionClient => {
    const s = new SessionClient(client.synthesizeInteractive());
    open.push(s);
    return s;
  };
  const status = () => callUnary(client.nodeStatus.bind(client), {});

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tts-interactive-'));
    // One flite slot: a synthesis in flight is visible in the node's admission counters.
    node = await startNode({ host: '127.0.0.1', port: 0, nodeId: `interactive-${process.pid}`, engines: ['flite'], defaultVoice: 'flite:slt', fliteWorkers: 1, maxSessions: MAX_SESSIONS, warmup: false, dataDir });
    client = new SynthesizerClient(node.address, credentials.createInsecure());
  });

  after(async () => {
    for (const s of open) s.call.cancel();
    client.close();
    await node.stop(1000);
    closeAllClients();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('two words at a time: audio starts after the first clause, before the sentence is complete; words run on over the context; the audio decodes', async () => {
    const s = session();
    s.start(sessionSpeech({ encoding: AudioEncoding.AUDIO_ENCODING_WAV }));
    await s.until((r) => r.some((m) => m.message.$case === 'started'), 'started');
    const started = s.received.find((m) => m.message.$case === 'started')!.message;
    assert.equal(started.$case === 'started' && started.value.info?.voice, 'flite:slt');
    const pieces = ['Thanks for ', 'calling the ', 'support line, ', 'my name ', 'is Ava ', 'and I '];
    // Up to the first clause ("...support line, "): then nothing more until audio comes.
    for (const p of pieces.slice(0, 3)) s.text('c1', p);
    await s.until((r) => r.some((m) => m.message.$case === 'audio' && m.message.value.data.length > 0), 'audio of the first clause', 10_000);
    const firstWords = s.audio('c1').flatMap((a) => a.words.map((w) => w.word.toLowerCase()));
    assert.ok(!firstWords.includes('ava'), 'the rest of the sentence was not sent yet');
    for (const p of pieces.slice(3)) s.text('c1', p);
    s.text('c1', 'will help you today. ');
    s.text('c1', 'Goodbye.');
    s.end('c1');
    await s.until(s.hasFinal('c1'), 'the final message');
    const final = s.final('c1')!;
    assert.equal(final.outcome, ContextOutcome.CONTEXT_OUTCOME_COMPLETED);
    const sent = [...pieces, 'will help you today. ', 'Goodbye.'].join('');
    assert.equal(final.charactersSpoken, sent.length, 'every character sent was spoken');
    assert.equal(final.charactersInSynthesis, 0);
    assert.equal(s.errors().length, 0, JSON.stringify(s.errors()));
    const audio = s.audio('c1');
    assert.deepEqual(audio.map((a) => a.sequence), audio.map((_, i) => i), 'in order, numbered from 0');
    const words = audio.flatMap((a) => a.words);
    assert.deepEqual(words.map((w) => w.word.replace(/[^a-z]/gi, '').toLowerCase()), sent.split(/\s+/).map((w) => w.replace(/[^a-z]/gi, '').toLowerCase()));
    for (let i = 1; i < words.length; i++) assert.ok(words[i]!.startSec >= words[i - 1]!.endSec - 1e-6, `word ${i} starts after the one before (cumulative times)`);
    const clip = await inspectClip(s.bytes('c1'));
    assertSpeech(clip, 3, 12);
    assert.ok(Math.abs(words.at(-1)!.endSec - clip.durationSec) < 0.6, `the last word ends near the end of the audio (${words.at(-1)!.endSec} s of ${clip.durationSec} s)`);
    assert.ok((final.metrics?.audioSeconds ?? 0) > 3);
    s.call.end();
    assert.equal(await s.closed(), undefined, 'the half-close ends the call cleanly');
  });

  test('flush speaks a half sentence at once; end with nothing more sends the final message', async () => {
    const s = session();
    s.start(sessionSpeech({ encoding: AudioEncoding.AUDIO_ENCODING_PCM, sampleRate: 16000 }));
    s.text('half', 'Hello there my ');
    s.text('half', 'good friend');
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(s.audio('half').length, 0, 'no boundary yet: nothing spoken');
    s.flush('half');
    await s.until((r) => r.some((m) => m.message.$case === 'audio'), 'audio after the flush', 10_000);
    s.end('half');
    await s.until(s.hasFinal('half'), 'the final message');
    const words = s.audio('half').flatMap((a) => a.words.map((w) => w.word.toLowerCase()));
    assert.deepEqual(words, ['hello', 'there', 'my', 'good', 'friend']);
    const pcm = s.bytes('half');
    assert.ok(pcm.length / 2 / 16000 > 0.5, `${pcm.length} bytes of 16 kHz PCM`);
    assert.equal(s.final('half')?.charactersSpoken, 'Hello there my good friend'.length);
    s.call.end();
    await s.closed();
  });

  test('cancel stops the audio of the context and frees the engine slot at once; other contexts go on', async () => {
    const s = session();
    s.start(sessionSpeech({ encoding: AudioEncoding.AUDIO_ENCODING_PCM, sampleRate: 16000 }));
    // Many sentences at once: flite's one slot stays busy with them.
    const long = Array.from({ length: 30 }, (_, i) => `This is sentence number ${i + 1} of a long answer that goes on.`).join(' ');
    s.text('long', long);
    await waitFor(() => node.context.admission.inFlight() > 0 && s.audio('long').length > 0, 10_000, 'the context to hold the slot and send audio');
    assert.equal((await status()).sessions, 1, 'the session counts in the node report');
    const cancelledAt = performance.now();
    s.cancel('long');
    await waitFor(() => node.context.admission.inFlight() === 0 && node.context.admission.queueDepth() === 0, 1000, 'the slot to be free');
    const freedMs = performance.now() - cancelledAt;
    // Loose: the machine is shared; the bench measures the figure (issue 31's target is 50 ms).
    assert.ok(freedMs < 500, `slot free ${freedMs.toFixed(0)} ms after the cancel`);
    assert.equal(node.context.admission.queuedWorkSeconds(), 0, 'no work of the context left in the node load');
    const cancelledUnixMs = Date.now() - (performance.now() - cancelledAt);
    await s.until(s.hasFinal('long'), 'the final message');
    const final = s.final('long')!;
    assert.equal(final.outcome, ContextOutcome.CONTEXT_OUTCOME_CANCELLED);
    assert.ok(final.charactersInSynthesis > 0, 'a sentence was in synthesis');
    assert.ok(final.charactersDropped > 0, 'later sentences were dropped');
    assert.equal(final.charactersSpoken + final.charactersInSynthesis + final.charactersDropped, long.length);
    // The session goes on: another context speaks; nothing more of the cancelled one comes.
    s.text('next', 'And now something else.');
    s.end('next');
    await s.until(s.hasFinal('next'), 'the next context');
    assert.equal(s.final('next')?.outcome, ContextOutcome.CONTEXT_OUTCOME_COMPLETED);
    // The engine did no more of the cancelled context's work: its last piece ended cancelled, none after.
    const events = (node.context.deps.audioEvents?.recent() ?? []).filter((e) => e.timeUnixMs >= cancelledUnixMs && e.characters > 30);
    assert.ok(events.every((e) => e.outcome === 'cancelled'), JSON.stringify(events.map((e) => e.outcome)));
    const finalAt = s.finalAt('long')!;
    assert.ok(s.audio('long').every((a) => a.at <= finalAt), 'no audio of the cancelled context after its final message');
    assert.equal(s.received.filter((r) => r.message.$case === 'final' && r.message.value.contextId === 'long').length, 1, 'one final message');
    s.call.end();
    await s.closed();
  });

  test('several contexts on one call: each its own audio stream, word times and final message', async () => {
    const s = session();
    s.start(sessionSpeech({ encoding: AudioEncoding.AUDIO_ENCODING_WAV }));
    s.text('a', 'The first voice says ');
    s.text('b', 'Meanwhile the second ');
    s.text('a', 'one thing. ');
    s.text('b', 'says another, quite different.');
    s.end('b');
    s.end('a');
    await s.until((r) => s.hasFinal('a')(r) && s.hasFinal('b')(r), 'both final messages');
    for (const [id, text] of [['a', 'The first voice says one thing. '], ['b', 'Meanwhile the second says another, quite different.']] as const) {
      const final = s.final(id)!;
      assert.equal(final.outcome, ContextOutcome.CONTEXT_OUTCOME_COMPLETED);
      assert.equal(final.charactersSpoken, text.length);
      const words = s.audio(id).flatMap((a) => a.words);
      assert.equal(words[0]?.word.toLowerCase(), text.split(' ')[0]!.toLowerCase(), `${id} starts at its own first word`);
      assert.ok(words[0]!.startSec < 0.5, `${id}'s times start at its own start`);
      const clip = await inspectClip(s.bytes(id));
      assertSpeech(clip, 1, 6);
    }
    // An id is free again after its final message.
    s.text('a', 'Again.');
    s.end('a');
    await s.until((r) => r.filter((m) => m.message.$case === 'final' && m.message.value.contextId === 'a').length === 2, 'the reopened context');
    s.call.end();
    await s.closed();
  });

  test('bad input in one context is an error message and the session lives on', async () => {
    const s = session();
    s.start(sessionSpeech());
    // Invalid SSML: the context fails, the session does not.
    s.text('ssml', '<speak>Hello <break time="soon"/> there.</speak>');
    await s.until(s.hasFinal('ssml'), 'the SSML context to end');
    assert.deepEqual(s.errors('ssml').map((e) => e.code), ['SSML_INVALID']);
    assert.equal(s.final('ssml')?.outcome, ContextOutcome.CONTEXT_OUTCOME_FAILED);
    // Valid SSML is spoken.
    s.text('ok-ssml', '<speak>Valid <break time="200ms"/> markup.</speak>');
    s.end('ok-ssml');
    await s.until(s.hasFinal('ok-ssml'), 'the valid SSML context');
    assert.equal(s.final('ok-ssml')?.outcome, ContextOutcome.CONTEXT_OUTCOME_COMPLETED);
    assert.ok(s.bytes('ok-ssml').length > 1000);
    // A piece that would pass the buffer limit is refused; the context keeps what it had.
    s.text('big', 'Some text without an end ');
    s.text('big', 'x'.repeat(5000));
    await s.until((r) => r.some((m) => m.message.$case === 'error' && m.message.value.contextId === 'big'), 'the refusal');
    assert.deepEqual(s.errors('big').map((e) => e.code), ['STREAM_BUFFER_FULL']);
    // Five contexts at once, a sixth refused; unknown contexts refused; text after end refused.
    for (const id of ['big', 'c2', 'c3', 'c4', 'c5']) s.text(id, 'Waiting ');
    s.text('c6', 'One too many.');
    s.flush('nobody');
    s.end('c5');
    s.text('c5', 'After the end.');
    s.cancel('nobody'); // nothing to cancel: no answer
    await s.until((r) => r.filter((m) => m.message.$case === 'error').length >= 5, 'the refusals');
    assert.deepEqual(s.errors('c6').map((e) => e.code), ['STREAM_CONTEXTS_EXCEEDED']);
    assert.deepEqual(s.errors('nobody').map((e) => e.code), ['STREAM_CONTEXT_UNKNOWN']);
    assert.deepEqual(s.errors('c5').map((e) => e.code), ['STREAM_CONTEXT_CLOSED']);
    s.end('big');
    await s.until(s.hasFinal('big'), 'the refused context to finish what it had');
    assert.equal(s.final('big')?.outcome, ContextOutcome.CONTEXT_OUTCOME_COMPLETED);
    assert.equal(s.final('big')?.charactersSpoken, 'Some text without an end Waiting '.length);
    s.call.end();
    assert.equal(await s.closed(), undefined, 'the session ends normally');
  });

  test('a first message other than the settings ends the call with STREAM_PROTOCOL_VIOLATION; settings with text are refused', async () => {
    const s = session();
    s.text('c', 'Hello.');
    assert.equal((await s.closed())?.code, 'STREAM_PROTOCOL_VIOLATION');
    const t = session();
    t.start(sessionSpeech({ text: 'Not here.' }));
    assert.equal((await t.closed())?.code, 'VALIDATION_FAILED');
    const v = session();
    v.start(sessionSpeech({ voice: 'flite:nobody' }));
    assert.equal((await v.closed())?.code, 'TTS_VOICE_NOT_FOUND');
  });

  test('sessions count in the node report and its session places; one past them is TTS_NODE_OVERLOADED', async () => {
    await waitFor(async () => (await status()).sessions === 0, 5000, 'earlier sessions to close');
    const held = Array.from({ length: MAX_SESSIONS }, () => session());
    for (const s of held) s.start();
    await Promise.all(held.map((s) => s.until((r) => r.some((m) => m.message.$case === 'started'), 'started')));
    // Buffered text counts in the node's queued work.
    held[0]!.text('w', 'A sentence that has not ended yet and waits for its end');
    await waitFor(() => node.context.admission.queuedWorkSeconds() > 0, 2000, 'the buffered text in the load');
    const report = await status();
    assert.equal(report.sessions, MAX_SESSIONS);
    assert.equal(report.maxSessions, MAX_SESSIONS);
    const refused = session();
    refused.start();
    const err = await refused.closed();
    assert.equal(err?.code, 'TTS_NODE_OVERLOADED');
    assert.ok((err?.retryAfterSec ?? 0) >= 1);
    // A cancelled call gives its place back, and its buffered text leaves the load.
    held[0]!.call.cancel();
    await waitFor(async () => (await status()).sessions === MAX_SESSIONS - 1, 2000, 'the place back');
    assert.equal(node.context.admission.queuedWorkSeconds(), 0);
    for (const s of held.slice(1)) s.call.end();
    await Promise.all(held.slice(1).map((s) => s.closed()));
    assert.equal((await status()).sessions, 0);
  });
});
