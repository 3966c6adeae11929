/**
 * Starts the facade alone in-process (no scheduler: `127.0.0.1:9` refuses at once), on a fresh
 * schema and key prefix of the test PostgreSQL and Redis, for tests of what the facade decides by
 * itself: access, limits, client addresses.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPrefix, freshSchemaName, TEST_DATABASE_URL, TEST_REDIS_URL } from '@tts/common/testing';
import { start as startFacade, type FacadeStartOptions, type RunningFacade } from '@tts/facade';

/** A facade started by startLoneFacade. */
export interface LoneFacade {
  readonly facade: RunningFacade;
  readonly url: string;
  /** The administrator key (X-Admin-Key). */
  readonly adminKey: string;
  /** Its DATA_DIR, removed by stop(). */
  readonly dataDir: string;
  stop(): Promise<void>;
}

/** Starts a facade without a scheduler; `options` override the test defaults. */
export async function startLoneFacade(options: FacadeStartOptions = {}): Promise<LoneFacade> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tts-facade-'));
  const adminKey = `test-admin-${randomBytes(16).toString('hex')}`;
  const facade = await startFacade({
    host: '127.0.0.1',
    port: 0,
    schedulerAddress: '127.0.0.1:9',
    databaseUrl: TEST_DATABASE_URL,
    dbSchema: freshSchemaName(),
    redisUrl: TEST_REDIS_URL,
    kvPrefix: freshPrefix(),
    dataDir,
    adminKey,
    hubTokenKey: randomBytes(32).toString('hex'),
    ...options,
  });
  return {
    facade,
    url: facade.url,
    adminKey,
    dataDir,
    async stop() {
      await facade.stop(2000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
