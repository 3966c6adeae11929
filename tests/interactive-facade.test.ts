/**
 * The facade's interactive session interface (issue 31, item 1), what the WebSocket and Wyoming
 * adapters will call: `Speech.speak` with a `session` output on a real platform (scheduler, one
 * flite node, the facade with PostgreSQL and Redis). The session goes through the speech use case
 * (an API key's caller, its voice resolved once, metering), is routed to the node and stays there;
 * text pushed two words at a time is heard from the first clause; a cancelled context stops and
 * frees the node's slot; the audio decodes; usage counts the characters spoken plus those in
 * synthesis at the cancel.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TtsError } from '@tts/common';
import type { SpeechSession, SpeechSessionEvent } from '@tts/facade/testing';
import { openAiSettingsOf } from '@tts/facade/testing';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';
import { assertSpeech, inspectClip } from './support/audio.js';

describe('the facade\'s interactive session (Speech.speak, output session)', { timeout: 240_000 }, () => {
  let p: TestPlatform;

  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt', fliteWorkers: 1 } });
  });

  after(async () => {
    await p.stop();
  });

  test('pushes text, hears the first clause early, cancels one context, ends another; audio decodes and usage counts what was spoken', async () => {
    const { apiKey, keyId } = await p.createKey({ name: 'session', tier: 'pro' });
    const caller = await p.facade.deps.access.authenticator.withApiKey(apiKey);
    const node = p.nodes[0]!;
    const events: SpeechSessionEvent[] = [];
    const at: number[] = [];
    let nodeId = '';
    const long = Array.from({ length: 20 }, (_, i) => `Sentence ${i + 1} of an answer the caller will interrupt.`).join(' ');
    const opening = ['Hello and ', 'welcome to ', 'the service, ', 'how can ', 'I help ', 'you today? '];
    await p.facade.deps.speech.speak(caller, { requestId: `req_session_${Date.now()}`, endpoint: 'WS test-session', text: '', settings: openAiSettingsOf({ model: 'tts-1', input: '', voice: 'alloy', response_format: 'wav' }) }, {
      kind: 'session',
      signal: new AbortController().signal,
      deliver: async (session: SpeechSession) => {
        nodeId = session.nodeId;
        assert.equal(session.info.voice, 'flite:slt', 'alloy is the default voice here');
        const reading = (async () => {
          for await (const e of session.events()) {
            events.push(e);
            at.push(performance.now());
          }
        })();
        const audioOf = (id: string): boolean => events.some((e) => e.kind === 'audio' && e.contextId === id && e.audio.length > 0);
        // Up to the first clause, then wait for its audio before sending the rest.
        for (const piece of opening.slice(0, 3)) await session.pushText('answer', piece);
        await waitFor(() => audioOf('answer'), 10_000, 'audio of the first clause');
        for (const piece of opening.slice(3)) await session.pushText('answer', piece);
        // A second context, interrupted while it speaks.
        await session.pushText('interrupted', long);
        await waitFor(() => audioOf('interrupted') && node.context.admission.inFlight() > 0, 10_000, 'the second context speaking');
        await session.cancel('interrupted');
        await waitFor(() => node.context.admission.inFlight() === 0, 1000, 'the slot free after the cancel');
        await session.end('answer');
        session.close();
        await reading;
      },
    });
    assert.equal(nodeId, node.nodeId);
    const finals = events.filter((e): e is Extract<SpeechSessionEvent, { kind: 'final' }> => e.kind === 'final');
    assert.deepEqual(finals.map((f) => [f.contextId, f.outcome]).sort(), [['answer', 'completed'], ['interrupted', 'cancelled']]);
    const cancelled = finals.find((f) => f.contextId === 'interrupted')!;
    const cancelledAt = at[events.indexOf(cancelled)]!;
    assert.ok(events.every((e, i) => e.kind !== 'audio' || e.contextId !== 'interrupted' || at[i]! <= cancelledAt), 'no audio of the cancelled context after its final message');
    const answer = events.filter((e): e is Extract<SpeechSessionEvent, { kind: 'audio' }> => e.kind === 'audio' && e.contextId === 'answer');
    const words = answer.flatMap((e) => e.words);
    assert.deepEqual(words.map((w) => w.word.replace(/[^a-z]/gi, '').toLowerCase()), opening.join('').trim().split(/\s+/).map((w) => w.replace(/[^a-z]/gi, '').toLowerCase()));
    const clip = await inspectClip(Buffer.concat(answer.map((e) => e.audio)));
    assertSpeech(clip, 1.5, 8);
    assert.equal(events.filter((e) => e.kind === 'error').length, 0);
    assert.equal(node.context.admission.sessions(), 0, 'the node session ended with the use case');
    // Usage: the characters spoken plus those in synthesis at the cancel, not the dropped ones.
    await p.facade.deps.metering.drain();
    const expected = finals.reduce((n, f) => n + f.charactersSpoken + f.charactersInSynthesis, 0);
    assert.ok(expected < opening.join('').length + long.length, 'the dropped text is not counted');
    const cost = (await (await fetch(`${p.url}/api/usage/cost-dashboard?key_id=${keyId}`, { headers: { 'x-admin-key': p.adminKey } })).json()) as { rows: { key_id: string; characters: number }[] };
    assert.equal(cost.rows.find((r) => r.key_id === keyId)?.characters, expected);
  });

  test('settings the node refuses fail the use case before the adapter runs, with the caller\'s field named', async () => {
    const caller = await p.facade.deps.access.authenticator.withApiKey(p.apiKey);
    let ran = false;
    await assert.rejects(
      p.facade.deps.speech.speak(caller, { requestId: `req_bad_${Date.now()}`, endpoint: 'WS test-session', text: '', settings: openAiSettingsOf({ model: 'tts-1', input: '', voice: 'flite:nobody' }) }, {
        kind: 'session',
        signal: new AbortController().signal,
        deliver: async () => {
          ran = true;
        },
      }),
      (e: unknown) => e instanceof TtsError && e.code === 'TTS_VOICE_NOT_FOUND' && e.loc.includes('voice'),
    );
    assert.equal(ran, false);
  });
});
