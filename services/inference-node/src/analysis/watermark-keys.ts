/**
 * The keys of the provenance watermark. Every node embeds with the active key and detects with
 * all of them, so a key can be rotated: add a new id, make it active, keep the old one for
 * detection for as long as its audio matters.
 *
 * TTS_WATERMARK_KEYS="<id>:<secret>,<id>:<secret>" (ids 1-255, secrets of at least 16 characters)
 * and TTS_WATERMARK_ACTIVE_KEY (default: the highest id). Unset on a single machine, a key is
 * generated once into DATA_DIR/watermark-keys.json (mode 0600); several nodes must share the
 * same keys through the environment (the Helm chart takes them from a Secret).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type Logger } from '@tts/common';

/** One watermark key. */
export interface WatermarkKey {
  readonly id: number;
  readonly secret: string;
}

/** The keys of a node. */
export interface WatermarkKeyring {
  /** Key new audio is marked with. */
  readonly active: WatermarkKey;
  /** Every key detection tries, the active one first. */
  readonly all: readonly WatermarkKey[];
}

/** What the keyring is read from. */
export interface WatermarkKeySettings {
  /** TTS_WATERMARK_KEYS, unparsed. */
  readonly watermarkKeys: string | undefined;
  /** TTS_WATERMARK_ACTIVE_KEY. */
  readonly watermarkActiveKey: number | undefined;
  readonly dataDir: string;
}

/** Parses TTS_WATERMARK_KEYS; throws ConfigError naming the problem. */
export function parseWatermarkKeys(raw: string): WatermarkKey[] {
  const keys: WatermarkKey[] = [];
  for (const item of raw.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const colon = item.indexOf(':');
    const id = Number(item.slice(0, colon));
    const secret = item.slice(colon + 1);
    if (colon <= 0 || !Number.isInteger(id) || id < 1 || id > 255) throw new ConfigError('TTS_WATERMARK_KEYS', `"${item.slice(0, 8)}..." is not <id 1-255>:<secret>`);
    if (secret.length < 16) throw new ConfigError('TTS_WATERMARK_KEYS', `the secret of key ${id} is shorter than 16 characters`);
    if (keys.some((k) => k.id === id)) throw new ConfigError('TTS_WATERMARK_KEYS', `key id ${id} appears twice`);
    keys.push({ id, secret });
  }
  if (keys.length === 0) throw new ConfigError('TTS_WATERMARK_KEYS', 'no key given');
  return keys;
}

function ring(keys: readonly WatermarkKey[], activeId: number | undefined): WatermarkKeyring {
  const id = activeId ?? Math.max(...keys.map((k) => k.id));
  const active = keys.find((k) => k.id === id);
  if (!active) throw new ConfigError('TTS_WATERMARK_ACTIVE_KEY', `no key with id ${id} in TTS_WATERMARK_KEYS`);
  return { active, all: [active, ...keys.filter((k) => k !== active)] };
}

/** The node's keyring: from the environment, else the generated file under DATA_DIR. */
export async function loadWatermarkKeys(settings: WatermarkKeySettings, logger: Logger): Promise<WatermarkKeyring> {
  if (settings.watermarkKeys !== undefined) return ring(parseWatermarkKeys(settings.watermarkKeys), settings.watermarkActiveKey);
  const file = path.resolve(settings.dataDir, 'watermark-keys.json');
  try {
    const stored = JSON.parse(await readFile(file, 'utf8')) as { keys: WatermarkKey[] };
    return ring(stored.keys, settings.watermarkActiveKey);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError('TTS_WATERMARK_KEYS', `unset, and ${file} is unreadable: ${(err as Error).message}`);
  }
  const keys: WatermarkKey[] = [{ id: 1, secret: randomBytes(32).toString('base64url') }];
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, JSON.stringify({ keys }, null, 2), { mode: 0o600, flag: 'wx' });
    logger.info('watermark key generated', { file, key_id: 1 });
  } catch (err) {
    // Another process of this machine generated it first: use that one.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return loadWatermarkKeys(settings, logger);
  }
  return ring(keys, settings.watermarkActiveKey);
}
