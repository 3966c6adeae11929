/**
 * Model management: the voices catalogue, the model search path (TTS_MODEL_DIR) and installing
 * voices from a Hugging Face-style model hub (resumable, sha256-verified, atomic), with an
 * offline mode that never uses the network.
 */
export {
  BUILTIN_CATALOGUE,
  catalogueSize,
  mergeCatalogues,
  parseCatalogue,
  readCatalogueFile,
  type CatalogueFile,
  type CatalogueVoice,
} from './catalogue.js';
export { DEFAULT_HUB_URL, downloadFile, hubFileUrl, type DownloadOptions, type DownloadProgress, type DownloadResult } from './hub-client.js';
export {
  ModelManager,
  parseModelDirs,
  type CatalogueListing,
  type InstalledVoice,
  type InstallProgress,
  type ModelManagerOptions,
} from './model-manager.js';
export {
  ANALYSIS_MODELS,
  AnalysisModelInstaller,
  DEFAULT_NPM_REGISTRY,
  npmTarballUrl,
  sha256File,
  type AnalysisInstallerOptions,
  type AnalysisInstallProgress,
  type AnalysisInstallRecord,
  type AnalysisModel,
  type InstalledAnalysisModel,
} from './analysis-models.js';
export { extractTarGz, type ExtractedFile } from './tar.js';
export { HubTokenCipher, HubTokenRepository, maskToken, validateHubToken, type HubValidation, type StoredHubToken } from './hub-token.js';
export { extractZip } from './zip.js';
