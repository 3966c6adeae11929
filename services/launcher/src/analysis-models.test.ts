import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '@tts/common/launch';
import { ensureAnalysisModels } from './analysis-models.js';

// A local cache laid out like `<id>/<files>`: the models the set-up installed (data/models/analysis).
const cache = path.resolve(import.meta.dirname, '..', '..', '..', 'data', 'models', 'analysis');
const logger = createLogger('launcher-test');

describe('the analysis models of the DATA_DIR in use', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'tts-launcher-models-'));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('names the missing models and the exact command that installs them into that DATA_DIR', async () => {
    const outcome = await ensureAnalysisModels({ DATA_DIR: dataDir }, false, logger);
    assert.deepEqual([...outcome.missing].sort(), ['libvosk', 'silero-vad', 'vosk-model-small-en-us-android', 'vosk-model-spk-0.4']);
    assert.deepEqual(outcome.installed, []);
    assert.equal(outcome.command, `TTS_MODEL_DIR=${path.join(dataDir, 'models')} npm run models -- install --all`);
    assert.equal(existsSync(path.join(dataDir, 'models', 'analysis')), false, 'nothing fetched without being asked');
  });

  it('installs what the local cache holds into that DATA_DIR, and names the command for the rest', async () => {
    const outcome = await ensureAnalysisModels({ DATA_DIR: dataDir, TTS_MODEL_CACHE_DIR: cache, TTS_MODELS_OFFLINE: '1' }, false, logger);
    for (const id of ['silero-vad', 'vosk-model-small-en-us-android', 'vosk-model-spk-0.4']) {
      assert.ok(outcome.installed.includes(id), `${id} installed: ${JSON.stringify(outcome)}`);
      assert.ok(existsSync(path.join(dataDir, 'models', 'analysis', id)), id);
    }
    // libvosk is a library, not a cached model folder: when the cache lacks it, its command is given.
    if (!outcome.installed.includes('libvosk')) assert.match(outcome.command, /npm run models -- install --all$/);
    const again = await ensureAnalysisModels({ DATA_DIR: dataDir }, false, logger);
    assert.ok(!again.missing.includes('silero-vad'), 'found on the next start');
  });
});
