import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { TtsError } from '@tts/common';
import { rms } from './dsp.js';
import { durationSec } from './pcm.js';
import { atempoFilter, timeStretch } from './tempo.js';
import { ffmpegChildren, sine, zeroCrossingRate } from './testing.js';

async function assertRejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof TtsError, `expected TtsError, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  });
}

describe('timeStretch', () => {
  const tone = sine(440, 24000, 2, 0.5);

  for (const speed of [2, 0.5, 4, 0.25]) {
    it(`speed ${speed} scales the duration by 1/${speed} (±5 %) and keeps the pitch and level`, async () => {
      const out = await timeStretch(tone, speed);
      assert.equal(out.sampleRate, 24000);
      const expected = durationSec(tone) / speed;
      assert.ok(Math.abs(durationSec(out) - expected) <= 0.05 * expected, `duration ${durationSec(out)} s, expected ${expected} s`);
      const zcr = zeroCrossingRate(out);
      assert.ok(Math.abs(zcr - 880) <= 0.02 * 880, `zero crossings ${zcr}/s, a 440 Hz tone has 880/s`);
      assert.ok(Math.abs(rms(out.samples) / rms(tone.samples) - 1) < 0.1, 'level kept');
    });
  }

  it('returns the input itself at speed 1 and for an empty clip', async () => {
    assert.equal(await timeStretch(tone, 1), tone);
    const empty = { samples: new Float32Array(0), sampleRate: 16000 };
    assert.equal(await timeStretch(empty, 2), empty);
  });

  it('rejects speeds outside 0.25..4.0 with TTS_SPEED_OUT_OF_RANGE', async () => {
    for (const speed of [0.24, 4.01, 0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await assertRejectsWith(timeStretch(tone, speed), 'TTS_SPEED_OUT_OF_RANGE');
    }
  });

  it('kills ffmpeg and rejects with TTS_CANCELLED when the signal aborts', async () => {
    const long = sine(440, 48000, 120, 0.5); // long enough to still be running when aborted
    const controller = new AbortController();
    const running = timeStretch(long, 1.5, controller.signal);
    await sleep(50);
    assert.equal(ffmpegChildren().length, 1, 'ffmpeg runs');
    controller.abort();
    await assertRejectsWith(running, 'TTS_CANCELLED');
    assert.deepEqual(ffmpegChildren(), [], 'no ffmpeg child left, not even a zombie');
  });

  it('rejects at once for an already aborted signal', async () => {
    await assertRejectsWith(timeStretch(tone, 2, AbortSignal.abort()), 'TTS_CANCELLED');
  });
});

describe('atempoFilter', () => {
  it('chains equal stages within 0.5..2.0', () => {
    assert.equal(atempoFilter(1.5), 'atempo=1.500000');
    assert.equal(atempoFilter(2), 'atempo=2.000000');
    assert.equal(atempoFilter(0.5), 'atempo=0.500000');
    assert.equal(atempoFilter(4), 'atempo=2.000000,atempo=2.000000');
    assert.equal(atempoFilter(0.25), 'atempo=0.500000,atempo=0.500000');
    assert.equal(atempoFilter(3), 'atempo=1.732051,atempo=1.732051');
    assert.equal(atempoFilter(0.3), 'atempo=0.547723,atempo=0.547723');
  });
});
