/**
 * The node's piper and VAD settings as read from the environment: defaults, search-path parsing,
 * provider-dependent batch size, and fail-fast errors that name the variable.
 */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MP3_QUALITY } from './audio/lame-codec.js';
import { loadNodeConfig } from './config.js';

describe('node config: piper and VAD', () => {
  it('has CPU defaults, and piper is not among the default engines', () => {
    const c = loadNodeConfig({});
    assert.deepEqual(c.engines, ['festival', 'flite', 'espeak']);
    assert.deepEqual(c.modelDirs, [path.resolve('data', 'models')]);
    assert.deepEqual(c.piperProviders, ['cpu']);
    assert.equal(c.piperIntraOpThreads, 1);
    assert.equal(c.piperGraphOptimization, 'all');
    assert.equal(c.piperMaxBatchSize, 1);
    assert.equal(c.piperMaxQueueDelayMs, 0);
    assert.equal(c.piperMaxQueue, 64);
    assert.equal(c.piperConcurrentBatches, Math.min(availableParallelism(), 4));
    assert.equal(c.vadTrim, false);
    assert.ok(Object.isFrozen(c));
  });

  it('reads the search path, providers and batching settings', () => {
    const c = loadNodeConfig({
      TTS_ENGINES: 'flite,piper', TTS_MODEL_DIR: '/models/a:/models/b, /models/a ,relative', TTS_PIPER_PROVIDERS: 'CUDA, cpu',
      TTS_PIPER_INTRA_OP_THREADS: '0', TTS_PIPER_GRAPH_OPT: 'basic', TTS_PIPER_MAX_QUEUE_DELAY_MS: '5', TTS_PIPER_MAX_QUEUE: '8',
      TTS_PIPER_CONCURRENT_BATCHES: '3', TTS_VAD_TRIM: 'true', DATA_DIR: '/ignored',
    });
    assert.deepEqual(c.engines, ['flite', 'piper']);
    assert.deepEqual(c.modelDirs, ['/models/a', '/models/b', path.resolve('relative')]);
    assert.deepEqual(c.piperProviders, ['cuda', 'cpu']);
    assert.equal(c.piperMaxBatchSize, 8, 'a GPU provider first: batching on by default');
    assert.equal(c.piperIntraOpThreads, 0);
    assert.equal(c.piperGraphOptimization, 'basic');
    assert.equal(c.piperMaxQueueDelayMs, 5);
    assert.equal(c.piperMaxQueue, 8);
    assert.equal(c.piperConcurrentBatches, 3);
    assert.equal(c.vadTrim, true);
    assert.equal(loadNodeConfig({ TTS_PIPER_MAX_BATCH: '16' }).piperMaxBatchSize, 16);
    assert.deepEqual(loadNodeConfig({ DATA_DIR: '/srv/tts' }).modelDirs, ['/srv/tts/models']);
  });

  it('fails fast naming the variable', () => {
    assert.throws(() => loadNodeConfig({ TTS_PIPER_GRAPH_OPT: 'max' }), /TTS_PIPER_GRAPH_OPT/);
    assert.throws(() => loadNodeConfig({ TTS_PIPER_MAX_BATCH: '0' }), /TTS_PIPER_MAX_BATCH/);
    assert.throws(() => loadNodeConfig({ TTS_PIPER_PROVIDERS: ' , ' }), /TTS_PIPER_PROVIDERS/);
    assert.throws(() => loadNodeConfig({ TTS_PIPER_INTRA_OP_THREADS: 'two' }), /TTS_PIPER_INTRA_OP_THREADS/);
    assert.throws(() => loadNodeConfig({ TTS_VAD_TRIM: 'maybe' }), /TTS_VAD_TRIM/);
  });

  it('talks to festival through a pipe by default; the former server transport on request; anything else fails naming the variable', () => {
    assert.equal(loadNodeConfig({}).festivalTransport, 'pipe');
    assert.equal(loadNodeConfig({ TTS_FESTIVAL_TRANSPORT: 'server' }).festivalTransport, 'server');
    assert.throws(() => loadNodeConfig({ TTS_FESTIVAL_TRANSPORT: 'socket' }), /TTS_FESTIVAL_TRANSPORT/);
  });

  it('encodes opus at complexity 5 unless TTS_OPUS_COMPLEXITY (0-10) says otherwise', () => {
    assert.equal(loadNodeConfig({}).opusComplexity, 5);
    assert.equal(loadNodeConfig({ TTS_OPUS_COMPLEXITY: '10' }).opusComplexity, 10);
    for (const bad of ['11', '-1', 'max']) assert.throws(() => loadNodeConfig({ TTS_OPUS_COMPLEXITY: bad }), /TTS_OPUS_COMPLEXITY/);
  });

  it('encodes mp3 at LAME quality MP3_QUALITY unless TTS_MP3_QUALITY (0-9) says otherwise', () => {
    assert.equal(loadNodeConfig({}).mp3Quality, MP3_QUALITY);
    assert.equal(loadNodeConfig({ TTS_MP3_QUALITY: '0' }).mp3Quality, 0);
    assert.equal(loadNodeConfig({ TTS_MP3_QUALITY: '9' }).mp3Quality, 9);
    for (const bad of ['10', '-1', '2.5', 'fast']) assert.throws(() => loadNodeConfig({ TTS_MP3_QUALITY: bad }), /TTS_MP3_QUALITY/);
  });
});

describe('node config: idle unload', () => {
  it('never unloads by default and keeps the default voice', () => {
    const c = loadNodeConfig({});
    assert.deepEqual(c.idleUnload, { defaultSec: 0, perEngine: {}, unloadDefaultVoice: false });
  });

  it('reads the default, the per-engine overrides (espeak-ng folded to espeak) and the default-voice switch', () => {
    const c = loadNodeConfig({
      TTS_ENGINES: 'festival,espeak-ng,piper', TTS_VOICE_IDLE_UNLOAD_SEC: '600', TTS_FESTIVAL_IDLE_UNLOAD_SEC: '0',
      TTS_PIPER_IDLE_UNLOAD_SEC: '30', TTS_ESPEAK_NG_IDLE_UNLOAD_SEC: '5', TTS_DEFAULT_VOICE_IDLE_UNLOAD: 'true',
    });
    assert.deepEqual(c.idleUnload, { defaultSec: 600, perEngine: { festival: 0, piper: 30, espeak: 5 }, unloadDefaultVoice: true });
  });

  it('refuses a negative or non-integer idle time, naming the variable', () => {
    assert.throws(() => loadNodeConfig({ TTS_VOICE_IDLE_UNLOAD_SEC: '-1' }), /TTS_VOICE_IDLE_UNLOAD_SEC/);
    assert.throws(() => loadNodeConfig({ TTS_FLITE_IDLE_UNLOAD_SEC: 'soon' }), /TTS_FLITE_IDLE_UNLOAD_SEC/);
  });
});
