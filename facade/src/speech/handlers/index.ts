/** Speech: synthesis (REST, OpenAI, ElevenLabs, the speech WebSocket and its tokens), voices, models, engines, pronunciation lexicons. */
import { createSpeech } from './createSpeech.js';
import { createSpeechStreamToken } from './createSpeechStreamToken.js';
import { deleteLexiconEntry } from './deleteLexiconEntry.js';
import { elevenLabsConvert } from './elevenLabsConvert.js';
import { elevenLabsConvertWithTimestamps } from './elevenLabsConvertWithTimestamps.js';
import { elevenLabsListVoices } from './elevenLabsListVoices.js';
import { elevenLabsMultiStreamInput } from './elevenLabsMultiStreamInput.js';
import { elevenLabsSearchVoices } from './elevenLabsSearchVoices.js';
import { elevenLabsStream } from './elevenLabsStream.js';
import { elevenLabsStreamInput } from './elevenLabsStreamInput.js';
import { elevenLabsStreamWithTimestamps } from './elevenLabsStreamWithTimestamps.js';
import { getLexicon } from './getLexicon.js';
import { listEngines } from './listEngines.js';
import { listModels } from './listModels.js';
import { listVoices } from './listVoices.js';
import { putLexiconEntry } from './putLexiconEntry.js';
import { replaceLexicon } from './replaceLexicon.js';
import { retrieveModel } from './retrieveModel.js';
import { streamSpeech } from './streamSpeech.js';
import { ttsSynthesize } from './ttsSynthesize.js';

/** The handlers of this room, keyed by operationId. */
export const SPEECH_HANDLERS = {
  createSpeech,
  streamSpeech,
  createSpeechStreamToken,
  listEngines,
  listModels,
  retrieveModel,
  listVoices,
  ttsSynthesize,
  getLexicon,
  replaceLexicon,
  putLexiconEntry,
  deleteLexiconEntry,
  elevenLabsConvert,
  elevenLabsStream,
  elevenLabsConvertWithTimestamps,
  elevenLabsStreamWithTimestamps,
  elevenLabsStreamInput,
  elevenLabsMultiStreamInput,
  elevenLabsListVoices,
  elevenLabsSearchVoices,
} as const;
