import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WordTiming } from '@tts/proto/synthesis';
import { CUE_LIMITS, cuesOf, formatCaptions } from './captions.js';

/** Timed words of `text`'s tokens (bare, as engines report them), `step` seconds each. */
function timed(text: string, step = 0.3, at = 0): WordTiming[] {
  return text.split(/\s+/).map((t, i) => ({ word: t.replace(/[^\p{L}\p{N}']/gu, ''), startSec: at + i * step, endSec: at + i * step + step * 0.9 }));
}

describe('captions', () => {
  it('ends a cue at each sentence end and shows the words as written', () => {
    const text = 'Hello there. How are you today?';
    const cues = cuesOf(timed(text), text);
    assert.deepEqual(cues.map((c) => c.text), ['Hello there.', 'How are you today?']);
    assert.deepEqual(cues.map((c) => [c.start, c.end].map((t) => Math.round(t * 1000))), [[0, 570], [600, 1770]]);
  });

  it('keeps cues within 7 words, 42 characters and 5 s, of whole words', () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen';
    const cues = cuesOf(timed(text), text);
    assert.deepEqual(cues.flatMap((c) => c.text.split(' ')), text.split(' '));
    for (const c of cues) assert.ok(c.text.split(' ').length <= CUE_LIMITS.words && c.text.length <= CUE_LIMITS.chars, c.text);
    const long = 'Antidisestablishmentarianism notwithstanding, extraordinarily incomprehensible circumlocutions';
    for (const c of cuesOf(timed(long), long)) assert.ok(c.text.length <= CUE_LIMITS.chars || !c.text.includes(' '), c.text);
    const slow = 'so slowly spoken words';
    const slowCues = cuesOf(timed(slow, 2), slow);
    for (const c of slowCues) assert.ok(c.end - c.start <= CUE_LIMITS.seconds, JSON.stringify(c));
  });

  it('reads SSML as its text (markup and a sub alias left out); a word the text lacks is shown as the engine gave it', () => {
    const text = '<speak>Meet the <sub alias="World Wide Web Consortium">W3C</sub> today.<break time="1s"/>It is 1999.</speak>';
    const words = timed('Meet the World Wide Web Consortium today. It is nineteen ninety-nine.');
    const cues = cuesOf(words, text);
    assert.deepEqual(cues.map((c) => c.text), ['Meet the World Wide Web Consortium today.', 'It is nineteen ninetynine']);
  });

  it('writes WebVTT and SRT', () => {
    const cues = [{ start: 0.08, end: 1.2346, text: 'a < b & c' }, { start: 3725.5, end: 3727, text: 'Later.' }];
    assert.equal(formatCaptions(cues, 'vtt'), 'WEBVTT\n\n00:00:00.080 --> 00:00:01.235\na &lt; b &amp; c\n\n01:02:05.500 --> 01:02:07.000\nLater.\n');
    assert.equal(formatCaptions(cues, 'srt'), '1\n00:00:00,080 --> 00:00:01,235\na < b & c\n\n2\n01:02:05,500 --> 01:02:07,000\nLater.\n');
  });
});
