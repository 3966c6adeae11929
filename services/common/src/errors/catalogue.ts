/**
 * The one catalogue of stable error codes. Every error a client can see carries one of these codes;
 * `GET /api/errors/docs` serves exactly this table.
 */
import type { status as GrpcStatus } from '@grpc/grpc-js';
import { SPEED_RANGE } from '../limits.js';

/**
 * A gRPC status by its name (`grpc/errors.ts` turns it into the number). A name, not grpc-js's enum,
 * so that loading the catalogue loads no gRPC: engine worker threads throw catalogue errors, and
 * grpc-js costs each of them megabytes (bench/README.md, `memory`).
 */
export type GrpcStatusName = keyof typeof GrpcStatus;

/** One catalogue entry: how a code surfaces over HTTP, gRPC and the OpenAI-compatible API. */
export interface ErrorSpec {
  /** HTTP status on the REST facade. */
  readonly http: number;
  /** gRPC status between services, by name (e.g. "INVALID_ARGUMENT"). */
  readonly grpc: GrpcStatusName;
  /** One-line meaning. */
  readonly message: string;
  /** What the caller can do about it. */
  readonly hint: string;
  /** `error.type` on /v1 (OpenAI-compatible) routes. */
  readonly openaiType: 'invalid_request_error' | 'authentication_error' | 'permission_error' | 'rate_limit_error' | 'server_error' | 'not_found_error';
  /** True when retrying the same request later may succeed. */
  readonly retryable: boolean;
}

const invalid = (message: string, hint: string): ErrorSpec => ({
  http: 422, grpc: 'INVALID_ARGUMENT', message, hint, openaiType: 'invalid_request_error', retryable: false,
});

export const ERROR_CATALOGUE = {
  VALIDATION_FAILED: invalid('The request failed validation.', 'Read `detail` for the offending fields and fix them.'),
  REQUEST_JSON_MALFORMED: invalid('The request body is not valid JSON.', 'Send a well-formed JSON object.'),
  REQUEST_CONTENT_TYPE_UNSUPPORTED: {
    http: 415, grpc: 'INVALID_ARGUMENT', message: 'The request content type is not accepted by this operation.',
    hint: 'Send the content type the operation documents (application/json or multipart/form-data).', openaiType: 'invalid_request_error', retryable: false,
  },
  REQUEST_BODY_TOO_LARGE: {
    http: 413, grpc: 'INVALID_ARGUMENT', message: 'The request body exceeds the size limit.',
    hint: 'Send a smaller body; see `limits` in GET /api/capabilities.', openaiType: 'invalid_request_error', retryable: false,
  },
  REQUEST_BODY_TOO_SLOW: {
    http: 408, grpc: 'DEADLINE_EXCEEDED', message: 'The request body arrived slower than the minimum rate; the connection is closed.',
    hint: 'Send the body at a steady pace (TTS_MIN_BODY_BYTES_PER_SEC, 1 KiB/s over 10 s by default) on a new connection.', openaiType: 'invalid_request_error', retryable: true,
  },
  REQUEST_CONTENT_ENCODING_UNSUPPORTED: {
    http: 415, grpc: 'INVALID_ARGUMENT', message: 'The request body\'s Content-Encoding is not supported.',
    hint: 'Send the body uncompressed (no Content-Encoding, or identity).', openaiType: 'invalid_request_error', retryable: false,
  },
  TTS_TEXT_EMPTY: invalid('The text is empty or only white space.', 'Send at least one speakable character.'),
  SSML_INVALID: invalid('The SSML is malformed or uses an element, attribute or value outside the supported subset.', 'Read the message for the element and its line and column; see the `text` field in the API description for the subset (breaks up to 10 s).'),
  TTS_TEXT_TOO_LONG: invalid('The text is longer than the limit.', 'Split the text or use the asynchronous job API; see `limits` in GET /api/capabilities.'),
  TTS_VOICE_NOT_FOUND: invalid('The voice does not exist.', 'Pick a voice id from GET /v1/audio/voices.'),
  TTS_ENGINE_NOT_FOUND: invalid('The engine does not exist.', 'Pick an engine from GET /api/plugins/engines.'),
  TTS_ENGINE_VOICE_MISMATCH: invalid('The voice does not belong to the requested engine.', 'Omit the engine or pick a voice of that engine.'),
  TTS_MODEL_NOT_FOUND: {
    http: 404, grpc: 'NOT_FOUND', message: 'The model does not exist.',
    hint: 'Pick a model id from GET /v1/models.', openaiType: 'invalid_request_error', retryable: false,
  },
  TTS_FORMAT_UNSUPPORTED: invalid('The audio format is not supported.', 'Use one of wav, pcm, mp3, opus, aac, flac, ulaw, alaw.'),
  TTS_SPEED_OUT_OF_RANGE: invalid(`The speed is outside ${SPEED_RANGE.min} to ${SPEED_RANGE.max}.`, `Send a speed between ${SPEED_RANGE.min} and ${SPEED_RANGE.max}.`),
  TTS_SAMPLE_RATE_INVALID: invalid('The sample rate is not supported.', 'Send a sample rate between 8000 and 48000 Hz.'),
  TTS_MODE_UNSUPPORTED: invalid('The mode is not supported.', 'See `modes` in GET /api/capabilities.'),
  TTS_ENGINE_UNAVAILABLE: {
    http: 503, grpc: 'UNAVAILABLE', message: 'The engine is not loaded on any ready node.',
    hint: 'Retry later; GET /api/plugins/engines shows engine readiness.', openaiType: 'server_error', retryable: true,
  },
  TTS_ENGINE_FAILED: {
    http: 503, grpc: 'UNAVAILABLE', message: 'The engine failed while synthesizing this request.',
    hint: 'Retry the request; the node restarts the failed engine worker.', openaiType: 'server_error', retryable: true,
  },
  TTS_NO_NODE_AVAILABLE: {
    http: 503, grpc: 'UNAVAILABLE', message: 'No inference node is ready to take the request.',
    hint: 'Retry after the Retry-After delay.', openaiType: 'server_error', retryable: true,
  },
  TTS_NODE_OVERLOADED: {
    http: 503, grpc: 'RESOURCE_EXHAUSTED', message: 'The inference node queue is full.',
    hint: 'Retry after the Retry-After delay, or use the asynchronous job API.', openaiType: 'server_error', retryable: true,
  },
  TTS_OVERLOADED: {
    http: 503, grpc: 'RESOURCE_EXHAUSTED', message: 'The platform cannot finish the request within its deadline now: the estimated queue wait plus its synthesis exceeds it.',
    hint: 'Retry after the Retry-After delay (the estimate of when it would fit), send shorter text, or use the asynchronous job API.', openaiType: 'server_error', retryable: true,
  },
  TTS_DEADLINE_EXCEEDED: {
    http: 504, grpc: 'DEADLINE_EXCEEDED', message: 'Synthesis did not finish within the deadline.',
    hint: 'Send shorter text or use the asynchronous job API.', openaiType: 'server_error', retryable: true,
  },
  TTS_CANCELLED: {
    http: 499, grpc: 'CANCELLED', message: 'The request was cancelled by the caller.',
    hint: 'Nothing to do; the work was stopped.', openaiType: 'invalid_request_error', retryable: false,
  },
  AUDIO_ENCODING_FAILED: {
    http: 503, grpc: 'UNAVAILABLE', message: 'The audio encoder failed.',
    hint: 'Retry, or ask for wav or pcm.', openaiType: 'server_error', retryable: true,
  },
  ROUTE_NOT_FOUND: {
    http: 404, grpc: 'UNIMPLEMENTED', message: 'No operation exists at this path.',
    hint: 'See GET /api/openapi/export for the operations.', openaiType: 'not_found_error', retryable: false,
  },
  METHOD_NOT_ALLOWED: {
    http: 405, grpc: 'UNIMPLEMENTED', message: 'The path does not accept this HTTP method.',
    hint: 'See GET /api/openapi/export for the methods of this path.', openaiType: 'invalid_request_error', retryable: false,
  },
  SERVICE_SHUTTING_DOWN: {
    http: 503, grpc: 'UNAVAILABLE', message: 'The service is shutting down.',
    hint: 'Retry; another replica takes the request.', openaiType: 'server_error', retryable: true,
  },
  INTERNAL_ERROR: {
    http: 500, grpc: 'INTERNAL', message: 'An unexpected error occurred.',
    hint: 'Retry; if it persists, report the request_id.', openaiType: 'server_error', retryable: true,
  },
  AUDIO_DECODE_FAILED: invalid('The audio could not be decoded.', 'Send a valid audio file (WAV, MP3, Ogg/Opus, FLAC or AAC) with at least one audio stream.'),
  AUDIO_CONTAINER_UNSUPPORTED: invalid(
    'The upload is not in an accepted audio container (judged from its bytes, not its name).',
    'Send WAV, MP3, FLAC, Ogg (Opus, Vorbis), M4A/MP4, AAC (ADTS) or WebM/Matroska; playlists, concat lists, SDP, images and other data are refused.',
  ),
  AUDIO_FORMAT_OUT_OF_RANGE: invalid(
    'The audio declares a sample rate, channel count, bit depth, length or duration outside the accepted range.',
    'Send audio of 4000 to 192000 Hz, 1 to 8 channels, 8 to 64 bits per sample, lasting at most 6 hours; see `detail`.',
  ),
  // Uploads (multipart audio) and their analysis on the nodes.
  UPLOAD_TOO_LARGE: {
    http: 413, grpc: 'RESOURCE_EXHAUSTED', message: 'The uploaded file exceeds the upload size limit.',
    hint: 'Send a shorter or compressed clip; see `limits.max_upload_bytes` in GET /api/capabilities.', openaiType: 'invalid_request_error', retryable: false,
  },
  UPLOAD_EMPTY: invalid('The uploaded file is empty.', 'Send the audio file in the documented form field.'),
  UPLOAD_MALFORMED: invalid('The multipart body could not be read.', 'Send a well-formed multipart/form-data body with the file in the documented field.'),
  UPLOAD_TOO_MANY_FILES: invalid('The form carries more files than the operation accepts.', 'Send only the documented file fields, one file each; a form of text fields takes no file.'),
  REFERENCE_NOT_FOUND: {
    http: 404, grpc: 'NOT_FOUND', message: 'The reference audio does not exist, has expired, or belongs to another caller.',
    hint: 'Upload the clip again with POST /api/reference/validate and use the reference_id it returns.', openaiType: 'not_found_error', retryable: false,
  },
  ANALYSIS_UNAVAILABLE: {
    http: 503, grpc: 'FAILED_PRECONDITION', message: 'The analysis model this operation needs is not installed on the inference nodes.',
    hint: 'Install the models (`npm run models -- install --all`) and restart the nodes.', openaiType: 'server_error', retryable: true,
  },
  REFERENCE_CHECK_FAILED: invalid('The stored reference clip did not pass the reference check (its failed checks are named), so it cannot be cloned.', 'Record or upload a clip that passes POST /api/reference/validate (3-10 s of one person speaking, mono, at least 16 kHz) and clone that one.'),
  CONSENT_REQUIRED: invalid('Cloning a voice needs the consent of its speaker, confirmed in the request.', 'Send consent_confirmed: true once you hold the speaker\'s consent; the confirmation is recorded in the consent audit.'),
  // Pronunciation lexicons (an API key's, a studio user's, a studio preset's).
  LEXICON_WORD_INVALID: invalid('A lexicon entry\'s word is empty, has too many words, or holds a character other than letters, digits and \' \u2019 . & + # _ -.', 'Send one word or a phrase of up to 8 words; the message names the character at fault.'),
  LEXICON_IPA_INVALID: invalid('A lexicon entry\'s IPA holds a symbol espeak-ng\'s IPA does not use, or no phoneme.', 'Write the IPA as `espeak-ng --ipa` writes it (stress \u02C8 \u02CC, length \u02D0 \u02D1, syllable break .); the message names the symbol and its code point.'),
  LEXICON_RESPELLING_INVALID: invalid('A lexicon entry\'s respelling holds something other than letters, apostrophes, hyphens and spaces.', 'Respell with letters read like English, e.g. "tuh-MAY-toh".'),
  LEXICON_ENTRY_INVALID: invalid('A lexicon entry needs exactly one of `ipa` and `respelling`.', 'Send the IPA or the respelling of the word, not both and not neither.'),
  LEXICON_ENTRY_TOO_LONG: invalid('A lexicon entry\'s word or pronunciation is longer than the limit.', 'Words hold at most 100 characters, IPA and respellings 200; see `limits` in GET /api/lexicon.'),
  LEXICON_ENTRY_DUPLICATE: invalid('Two entries of the lexicon are for the same word.', 'Send one entry per word (words are compared whatever their capitalization).'),
  LEXICON_LIMIT_REACHED: {
    http: 409, grpc: 'RESOURCE_EXHAUSTED', message: 'The lexicon already holds as many entries as it may.',
    hint: 'Delete an entry (DELETE .../lexicon/entries/{word}) or replace the lexicon with PUT.', openaiType: 'invalid_request_error', retryable: false,
  },
  LEXICON_TOO_LARGE: invalid('The lexicon sent holds more entries than a lexicon may.', 'Send at most 1000 entries; see `limits` in GET /api/lexicon.'),
  LEXICON_ENTRY_NOT_FOUND: {
    http: 404, grpc: 'NOT_FOUND', message: 'The lexicon has no entry for this word.',
    hint: 'List the entries with GET /api/lexicon (or the preset\'s lexicon).', openaiType: 'not_found_error', retryable: false,
  },
  // The model-hub token.
  HUB_TOKEN_INVALID: invalid('The model hub refused the token.', 'Create a token with read access on the hub and send it again.'),
  HUB_TOKEN_NOT_SET: {
    http: 404, grpc: 'NOT_FOUND', message: 'No model-hub token is set.',
    hint: 'Set one with POST /api/hub/token, or send the token to validate in the body.', openaiType: 'not_found_error', retryable: false,
  },
  HUB_TOKEN_KEY_MISSING: {
    http: 503, grpc: 'FAILED_PRECONDITION', message: 'No key to encrypt the model-hub token at rest is configured.',
    hint: 'Set TTS_HUB_TOKEN_KEY (32 bytes, hex or base64) on every facade replica.', openaiType: 'server_error', retryable: false,
  },
  HUB_TOKEN_UNDECRYPTABLE: {
    http: 409, grpc: 'FAILED_PRECONDITION', message: 'The stored model-hub token was encrypted under another key.',
    hint: 'Restore the previous TTS_HUB_TOKEN_KEY, or set the token again.', openaiType: 'invalid_request_error', retryable: false,
  },
  HUB_TIMEOUT: {
    http: 504, grpc: 'DEADLINE_EXCEEDED', message: 'The model hub did not answer in time.',
    hint: 'Retry, or raise timeout_sec (up to 30).', openaiType: 'server_error', retryable: true,
  },
  HUB_UNREACHABLE: {
    http: 502, grpc: 'UNAVAILABLE', message: 'The model hub could not be reached or answered unexpectedly.',
    hint: 'Check the network and TTS_MODEL_HUB_URL, then retry.', openaiType: 'server_error', retryable: true,
  },
  // Compliance: terms and abuse reports.
  TERMS_VERSION_UNKNOWN: invalid('The terms version does not exist.', 'Accept the version GET /api/compliance/terms returns.'),
  TERMS_VERSION_OUTDATED: {
    http: 409, grpc: 'FAILED_PRECONDITION', message: 'The terms version is not the current one.',
    hint: 'Read GET /api/compliance/terms and accept its current version.', openaiType: 'invalid_request_error', retryable: false,
  },
  ABUSE_SAMPLE_INVALID: invalid('The abuse report\'s audio sample is not valid base64.', 'Send the sample as standard base64 (RFC 4648) in audio_sample_base64, or leave it out.'),
  ABUSE_REPORT_NOT_FOUND: {
    http: 404, grpc: 'NOT_FOUND', message: 'The abuse report does not exist.',
    hint: 'List reports with GET /api/compliance/abuse/reports.', openaiType: 'not_found_error', retryable: false,
  },
  ABUSE_REPORT_TRANSITION_INVALID: {
    http: 409, grpc: 'FAILED_PRECONDITION', message: 'The report cannot move to that status from its current one.',
    hint: 'Reports move open -> reviewing -> actioned or dismissed; read the report and its history first.', openaiType: 'invalid_request_error', retryable: false,
  },
  // The studio portal: accounts and sessions.
  STUDIO_SESSION_MISSING: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'No studio session token was sent.',
    hint: 'Start a session with POST /api/studio/auth/guest, /register or /login and send its token in X-Studio-Token.', openaiType: 'authentication_error', retryable: false,
  },
  STUDIO_SESSION_INVALID: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'The studio session token is unknown, expired or revoked.',
    hint: 'Log in again (POST /api/studio/auth/login) or start a guest session.', openaiType: 'authentication_error', retryable: false,
  },
  STUDIO_ACCOUNT_DISABLED: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'The studio account is disabled.',
    hint: 'Contact the administrators of this studio.', openaiType: 'permission_error', retryable: false,
  },
  STUDIO_ADMIN_REQUIRED: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'The operation is reserved to administrators.',
    hint: 'Use a studio account with the admin role, or the administrator key in X-Admin-Key.', openaiType: 'permission_error', retryable: false,
  },
  STUDIO_REGISTRATION_REQUIRED: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'A guest session cannot do this; the account must be registered.',
    hint: 'Register (POST /api/studio/auth/register with the guest token keeps the presets), then retry.', openaiType: 'permission_error', retryable: false,
  },
  STUDIO_LOGIN_FAILED: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'The login or the password is wrong.',
    hint: 'Check both; repeated failures are throttled per account and per address.', openaiType: 'authentication_error', retryable: false,
  },
  STUDIO_LOGIN_THROTTLED: {
    http: 429, grpc: 'RESOURCE_EXHAUSTED', message: 'Too many failed logins for this account or from this address.',
    hint: 'Wait for the Retry-After delay before trying again.', openaiType: 'rate_limit_error', retryable: true,
  },
  STUDIO_PASSWORD_TOO_SHORT: invalid('The password is too short (at least 12 characters).', 'Use a longer password; a passphrase of several words is easy to remember.'),
  STUDIO_PASSWORD_TOO_LONG: invalid('The password is too long (at most 128 characters).', 'Use a password of 12 to 128 characters.'),
  STUDIO_PASSWORD_WEAK: invalid('The password is known from breaches, repetitive or sequential, or contains the account name.', 'Choose another password; length matters more than symbols.'),
  STUDIO_PASSWORD_INCORRECT: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'The current password is wrong.',
    hint: 'Send the account\'s current password in current_password.', openaiType: 'permission_error', retryable: false,
  },
  STUDIO_USERNAME_INVALID: invalid('The username is not valid.', 'Use 3 to 32 letters, digits, dots, dashes or underscores, starting with a letter or digit.'),
  STUDIO_USERNAME_MIXED_SCRIPT: invalid('The username mixes letters of several scripts (such as Latin and Cyrillic).', 'Write the username in one script; digits, dots, dashes and underscores go with any.'),
  STUDIO_PASSWORD_GUESSABLE: invalid('The password is too easy to guess (strength below 3 on the 0-4 zxcvbn scale).', 'Follow the message\'s suggestions: a few uncommon words, no keyboard walks or repeated patterns.'),
  STUDIO_PASSWORD_BREACHED: invalid('The password appears in a corpus of passwords exposed in data breaches (Have I Been Pwned).', 'Choose another password, one not used on any other site; a few uncommon words work well.'),
  STUDIO_EMAIL_INVALID: invalid('The email address is not valid.', 'Send an address such as name@example.org (at most 254 characters).'),
  STUDIO_LOGIN_NAME_MISSING: invalid('Registration needs a username or an email address.', 'Send username, email or both.'),
  STUDIO_USERNAME_TAKEN: {
    http: 409, grpc: 'ALREADY_EXISTS', message: 'The username is taken (names are compared case-insensitively after Unicode normalization).',
    hint: 'Pick another username.', openaiType: 'invalid_request_error', retryable: false,
  },
  STUDIO_USERNAME_CONFUSABLE: {
    http: 409, grpc: 'ALREADY_EXISTS', message: 'The username looks like one already taken (same Unicode confusable skeleton).',
    hint: 'Pick a name that does not read as an existing one (look-alike letters, accents, 1 for l).', openaiType: 'invalid_request_error', retryable: false,
  },
  STUDIO_EMAIL_TAKEN: {
    http: 409, grpc: 'ALREADY_EXISTS', message: 'The email address is already registered.',
    hint: 'Log in with it, or use another address.', openaiType: 'invalid_request_error', retryable: false,
  },
  STUDIO_ALREADY_REGISTERED: {
    http: 409, grpc: 'FAILED_PRECONDITION', message: 'This session already belongs to a registered account.',
    hint: 'Log out first to register another account.', openaiType: 'invalid_request_error', retryable: false,
  },
  STUDIO_USER_NOT_FOUND: {
    http: 404, grpc: 'NOT_FOUND', message: 'The studio user does not exist.',
    hint: 'List users with GET /api/studio/admin/users.', openaiType: 'not_found_error', retryable: false,
  },
  STUDIO_SELF_LOCKOUT: {
    http: 409, grpc: 'FAILED_PRECONDITION', message: 'An administrator cannot remove their own admin role or disable their own account.',
    hint: 'Ask another administrator, or use the administrator key.', openaiType: 'invalid_request_error', retryable: false,
  },
  // The studio portal: presets and shares.
  STUDIO_PRESET_NOT_FOUND: {
    http: 404, grpc: 'NOT_FOUND', message: 'The preset does not exist or belongs to another user.',
    hint: 'List your presets with GET /api/studio/presets.', openaiType: 'not_found_error', retryable: false,
  },
  STUDIO_PRESET_LIMIT_REACHED: {
    http: 409, grpc: 'RESOURCE_EXHAUSTED', message: 'The account holds as many presets as its tier allows.',
    hint: 'Delete a preset, register (guests have a lower limit) or become VIP; see GET /api/studio/vip/info.', openaiType: 'invalid_request_error', retryable: false,
  },
  STUDIO_SHARE_NOT_FOUND: {
    http: 404, grpc: 'NOT_FOUND', message: 'The share does not exist or belongs to another user.',
    hint: 'Check the link; list your shares with GET /api/studio/shares.', openaiType: 'not_found_error', retryable: false,
  },
  STUDIO_SHARE_REVOKED: {
    http: 410, grpc: 'NOT_FOUND', message: 'The share was revoked by its owner.',
    hint: 'Ask the owner for a new link.', openaiType: 'not_found_error', retryable: false,
  },
  STUDIO_SHARE_EXPIRED: {
    http: 410, grpc: 'NOT_FOUND', message: 'The share has expired.',
    hint: 'Ask the owner for a new link.', openaiType: 'not_found_error', retryable: false,
  },
  STUDIO_SHARE_LIMIT_REACHED: {
    http: 409, grpc: 'RESOURCE_EXHAUSTED', message: 'The account holds as many active shares as it may.',
    hint: 'Revoke a share (DELETE /api/studio/shares/{share_id}) first.', openaiType: 'invalid_request_error', retryable: false,
  },
  // The studio portal: VIP.
  STUDIO_VIP_PLAN_UNKNOWN: invalid('The VIP plan does not exist.', 'Pick a plan id from GET /api/studio/vip/info.'),
  STUDIO_SLIP_NOT_IMAGE: invalid('The slip is not one whole, well-formed JPEG, PNG or WebP image.', 'Send the payment slip image (a screenshot or the bank app\'s saved slip) in the `slip` field.'),
  STUDIO_SLIP_DIMENSIONS: invalid('The slip image is larger than 4096 x 4096 pixels.', 'Send the slip as the bank app saved it, or a screenshot of it.'),
  STUDIO_SLIP_DUPLICATE: {
    http: 409, grpc: 'ALREADY_EXISTS', message: 'This payment slip was already submitted.',
    hint: 'Each transfer grants VIP once; see the existing request in GET /api/studio/vip/info.', openaiType: 'invalid_request_error', retryable: false,
  },
  STUDIO_VIP_REQUEST_PENDING: {
    http: 409, grpc: 'FAILED_PRECONDITION', message: 'A VIP request of this account is already waiting for an administrator.',
    hint: 'Wait for the decision; GET /api/studio/vip/info shows the request.', openaiType: 'invalid_request_error', retryable: false,
  },
  STUDIO_VIP_REQUEST_NOT_FOUND: {
    http: 404, grpc: 'NOT_FOUND', message: 'The VIP request does not exist.',
    hint: 'List requests with GET /api/studio/admin/vip-requests.', openaiType: 'not_found_error', retryable: false,
  },
  STUDIO_VIP_SELF_APPROVAL: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'An administrator cannot approve their own VIP request.',
    hint: 'Another administrator (or the administrator key) decides it; the refused attempt is audited.', openaiType: 'permission_error', retryable: false,
  },
  STUDIO_VIP_REQUEST_DECIDED: {
    http: 409, grpc: 'FAILED_PRECONDITION', message: 'The VIP request is not waiting for a decision.',
    hint: 'Only a request in pending_review can be approved or rejected.', openaiType: 'invalid_request_error', retryable: false,
  },
  AUDIO_PROCESSING_FAILED: {
    http: 503, grpc: 'UNAVAILABLE', message: 'An audio processing step (such as the speed change) failed.',
    hint: 'Retry, or send speed 1.0.', openaiType: 'server_error', retryable: true,
  },
  MODEL_NOT_INSTALLED: {
    http: 503, grpc: 'FAILED_PRECONDITION', message: 'The model is not installed on this node.',
    hint: 'Install it with the model manager (needs the model hub), or copy its files into a TTS_MODEL_DIR directory.', openaiType: 'server_error', retryable: false,
  },
  MODEL_DOWNLOAD_FAILED: {
    http: 502, grpc: 'UNAVAILABLE', message: 'The model could not be downloaded from the model hub.',
    hint: 'Retry; a partial download resumes where it stopped. Check the hub URL and the network.', openaiType: 'server_error', retryable: true,
  },
  MODEL_CHECKSUM_MISMATCH: {
    http: 502, grpc: 'DATA_LOSS', message: 'A downloaded model file does not match its catalogue checksum.',
    hint: 'Retry the install (the bad file was discarded); if it persists, the catalogue or the hub revision is wrong.', openaiType: 'server_error', retryable: true,
  },
  MODEL_HUB_UNAUTHORIZED: {
    http: 502, grpc: 'FAILED_PRECONDITION', message: 'The model hub refused the download (401/403).',
    hint: 'Set the model-hub token (TTS_MODEL_HUB_TOKEN) to one with access to the repository.', openaiType: 'server_error', retryable: false,
  },
  // Identity: API keys, administrator key, anti-bot challenge, rate limits, quotas, usage reports.
  AUTH_KEY_MISSING: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'No API key was sent.',
    hint: 'Send your key in the X-API-Key header; where the operation allows it, a challenge pass (GET /api/auth/challenge) works instead.', openaiType: 'authentication_error', retryable: false,
  },
  AUTH_STREAM_TOKEN_INVALID: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'The streaming token is unknown, expired or already used.',
    hint: 'Mint a new token with POST /v1/audio/speech/stream/tokens (API key) just before connecting; each token opens one session, within 60 s.', openaiType: 'authentication_error', retryable: false,
  },
  AUTH_KEY_INVALID: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'The API key is malformed or unknown.',
    hint: 'Send the full key exactly as shown when it was created (tts_<key_id>_<secret>).', openaiType: 'authentication_error', retryable: false,
  },
  AUTH_KEY_DISABLED: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'The API key is disabled.',
    hint: 'Ask an administrator to enable it (PATCH /api/auth/keys/{key_id}) or to create a new key.', openaiType: 'authentication_error', retryable: false,
  },
  AUTH_KEY_NOT_FOUND: {
    http: 404, grpc: 'NOT_FOUND', message: 'No API key has this key_id.',
    hint: 'List the keys with GET /api/auth/keys.', openaiType: 'not_found_error', retryable: false,
  },
  GRPC_CALLER_UNAUTHENTICATED: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'The gRPC call carries no valid caller credential.',
    hint: 'Internal services send an API key in the x-api-key metadata; platform components send the internal token (TTS_INTERNAL_TOKEN) as "authorization: Bearer <token>".', openaiType: 'authentication_error', retryable: false,
  },
  GRPC_CALLER_FORBIDDEN: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'This caller may not make this call.',
    hint: 'An API key acts only as its own owner and tier: leave owner and tier out of the request, or use the platform credential.', openaiType: 'permission_error', retryable: false,
  },
  NODE_JOIN_REFUSED: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'The node did not present the join credential.',
    hint: "Give the node the scheduler's TTS_NODE_JOIN_TOKEN.", openaiType: 'authentication_error', retryable: false,
  },
  AUTH_TIER_UNKNOWN: invalid('The tier does not exist.', 'Pick a tier from GET /api/auth/tiers.'),
  AUTH_ADMIN_REQUIRED: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'The operation is reserved to administrators.',
    hint: 'Send the administrator key in the X-Admin-Key header; an API key does not grant administrator operations.', openaiType: 'permission_error', retryable: false,
  },
  AUTH_ADMIN_KEY_INVALID: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'The administrator key is wrong.',
    hint: 'Send the value of TTS_ADMIN_KEY (or the key printed on the first embedded start) in X-Admin-Key.', openaiType: 'authentication_error', retryable: false,
  },
  AUTH_CHALLENGE_REQUIRED: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'No API key and no challenge pass were sent.',
    hint: 'Send X-API-Key, or get a challenge from GET /api/auth/challenge, solve it and post the solution to receive the pass cookie.', openaiType: 'authentication_error', retryable: false,
  },
  AUTH_CHALLENGE_INVALID: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'The challenge is forged or malformed, or the solution does not solve it.',
    hint: 'Get a new challenge from GET /api/auth/challenge and send its exact challenge string with a valid solution.', openaiType: 'permission_error', retryable: false,
  },
  AUTH_CHALLENGE_EXPIRED: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'The challenge expired before its solution arrived.',
    hint: 'Get a new challenge and send the solution before expires_unix.', openaiType: 'permission_error', retryable: false,
  },
  AUTH_CHALLENGE_REPLAYED: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'This challenge was already redeemed.',
    hint: 'Each challenge is single-use: get a new one.', openaiType: 'permission_error', retryable: false,
  },
  AUTH_CHALLENGE_COOKIE_INVALID: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'The challenge pass cookie is forged, malformed or issued to another client.',
    hint: 'Solve a new challenge to get a new pass.', openaiType: 'authentication_error', retryable: false,
  },
  AUTH_CHALLENGE_COOKIE_EXPIRED: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'The challenge pass cookie expired.',
    hint: 'Solve a new challenge to get a new pass.', openaiType: 'authentication_error', retryable: false,
  },
  RATE_LIMITED: {
    http: 429, grpc: 'RESOURCE_EXHAUSTED', message: 'Too many requests for this rate profile.',
    hint: 'Wait for the Retry-After delay; RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset describe the window.', openaiType: 'rate_limit_error', retryable: true,
  },
  STREAM_LIMIT_EXCEEDED: {
    http: 429, grpc: 'RESOURCE_EXHAUSTED', message: 'This credential already holds as many open long-lived streams (log streams) as it may.',
    hint: 'Close a stream you no longer read, or wait for the Retry-After delay; the cap is TTS_MAX_STREAMS_PER_CREDENTIAL per facade replica.', openaiType: 'rate_limit_error', retryable: true,
  },
  SESSION_LIMIT_EXCEEDED: {
    http: 429, grpc: 'RESOURCE_EXHAUSTED', message: 'This API key already holds as many open streaming sessions as its tier allows.',
    hint: 'Close a session you no longer use (or end its contexts and reuse it: one session holds several contexts), wait for the Retry-After delay, or ask for a higher tier (TTS_TIER_SESSIONS sets the caps; GET /api/auth/tiers lists them).', openaiType: 'rate_limit_error', retryable: true,
  },
  WEBSOCKET_UPGRADE_REQUIRED: {
    http: 426, grpc: 'FAILED_PRECONDITION', message: 'This operation is a WebSocket: the request must ask to upgrade the connection.',
    hint: 'Connect with a WebSocket client (ws:// or wss://, `Connection: Upgrade`, `Upgrade: websocket`) rather than a plain HTTP request.', openaiType: 'invalid_request_error', retryable: false,
  },
  STREAM_CONTEXTS_EXCEEDED: {
    http: 429, grpc: 'RESOURCE_EXHAUSTED', message: 'The streaming session already has as many contexts open as it may; the text for a new one was refused.',
    hint: 'End or cancel a context first (its final message frees its place), or send the text to one already open; InteractiveStarted.max_contexts is the cap (TTS_SESSION_MAX_CONTEXTS).', openaiType: 'rate_limit_error', retryable: true,
  },
  STREAM_BUFFER_FULL: {
    http: 429, grpc: 'RESOURCE_EXHAUSTED', message: 'The context holds as much text not yet synthesized as it may; this text was refused.',
    hint: 'Send the text again once the context\'s audio has caught up, or flush it; InteractiveStarted.max_buffered_chars is the cap (TTS_SESSION_MAX_BUFFERED_CHARS).', openaiType: 'rate_limit_error', retryable: true,
  },
  STREAM_CONTEXT_UNKNOWN: invalid('The message names a context the streaming session does not have (never opened, or already finished).', 'Open a context by sending it text first; a context id is free again once its final message has come.'),
  STREAM_CONTEXT_CLOSED: invalid('Text for a context whose input has already ended.', 'Wait for the context\'s final message and send the text as a new context, or use another context id.'),
  STREAM_PROTOCOL_VIOLATION: invalid('The streaming session\'s messages are out of order: its first message must be its settings, and only its first.', 'Send the settings once, first, then text, flush, cancel and end messages.'),
  WYOMING_EVENT_INVALID: invalid('A Wyoming event is malformed: its header line or data is not a JSON object of the protocol\'s shape, or a field of the event has the wrong type; the connection is closed.', 'Send each event as the Wyoming protocol describes it: a JSON header line with `type` (and `data_length`, `payload_length` as byte counts), then the data JSON and the payload.'),
  WYOMING_EVENT_TOO_LARGE: {
    http: 413, grpc: 'INVALID_ARGUMENT', message: 'A Wyoming event\'s header line, data or payload is larger than the server takes; the connection is closed.',
    hint: 'Send smaller events (text in several synthesize-chunk events); the cap on each part is TTS_WS_MAX_MESSAGE_BYTES.', openaiType: 'invalid_request_error', retryable: false,
  },
  WYOMING_IDLE_TIMEOUT: {
    http: 408, grpc: 'DEADLINE_EXCEEDED', message: 'The Wyoming connection sent and received nothing for the inactivity time-out; it is closed.',
    hint: 'Open a new connection for the next request (Home Assistant does, one per synthesis).', openaiType: 'invalid_request_error', retryable: true,
  },
  STREAM_MESSAGE_INVALID: invalid('A message of the streaming session is not one the protocol documents: not valid JSON, not an object of a known `type`, a field out of its schema, or a binary frame where only JSON messages are taken.', 'Send JSON text frames as the AsyncAPI document describes them (GET /asyncapi.yaml); the session goes on.'),
  STREAM_INACTIVITY_TIMEOUT: {
    http: 408, grpc: 'DEADLINE_EXCEEDED', message: 'The streaming session was idle for its inactivity timeout: the client sent nothing and no audio was sent; it is closed.',
    hint: 'Send a message (a space as text keeps a session open without speaking) within `inactivity_timeout` seconds (20 by default, up to 180 as session.start asks), or open a new session when there is text.', openaiType: 'invalid_request_error', retryable: true,
  },
  STREAM_CLIENT_TOO_SLOW: {
    http: 408, grpc: 'DEADLINE_EXCEEDED', message: 'The client did not read the session\'s audio: more waited unsent than the server holds for one socket (for as long as the protocol allows); the session is closed.',
    hint: 'Read the socket as the audio arrives (a browser does unless its page is blocked), and open a new session.', openaiType: 'invalid_request_error', retryable: true,
  },
  TTS_CONCURRENCY_LIMIT: {
    http: 429, grpc: 'RESOURCE_EXHAUSTED', message: 'This caller has as many syntheses in flight as its tier allows at once.',
    hint: 'Wait for one of your requests to finish (Retry-After), send fewer in parallel, use the asynchronous job API, or ask for a higher tier (TTS_TIER_CONCURRENCY sets the caps).', openaiType: 'rate_limit_error', retryable: true,
  },
  QUOTA_EXCEEDED: {
    http: 429, grpc: 'RESOURCE_EXHAUSTED', message: 'The character quota of this key is used up.',
    hint: 'Wait for the quota to reset (Retry-After: next UTC day or month), send shorter text, or ask for a higher tier.', openaiType: 'rate_limit_error', retryable: true,
  },
  USAGE_DATE_INVALID: invalid('A day parameter is not a valid calendar date.', 'Send day_from and day_to as YYYY-MM-DD (UTC days), e.g. 2024-05-31.'),
  USAGE_DATE_RANGE_INVALID: invalid('day_from is after day_to.', 'Send a day_from on or before day_to.'),
  // Asynchronous jobs (scheduler).
  JOB_NOT_FOUND: {
    http: 404, grpc: 'NOT_FOUND', message: 'No job has this job_id.',
    hint: 'Check the job_id returned when the job was created; jobs are visible only to their owner.', openaiType: 'not_found_error', retryable: false,
  },
  JOB_NOT_READY: {
    http: 409, grpc: 'FAILED_PRECONDITION', message: 'The job has not completed yet.',
    hint: 'Poll the job status (or its events) until the state is completed, then fetch the audio.', openaiType: 'invalid_request_error', retryable: true,
  },
  JOB_FAILED: {
    http: 409, grpc: 'FAILED_PRECONDITION', message: 'The job failed, so it has no audio.',
    hint: 'Read error_code and error_message in the job status; submit a new job once the cause is fixed.', openaiType: 'invalid_request_error', retryable: false,
  },
  JOB_CANCELLED: {
    http: 409, grpc: 'FAILED_PRECONDITION', message: 'The job was cancelled, so it has no audio.',
    hint: 'Submit a new job.', openaiType: 'invalid_request_error', retryable: false,
  },
  JOB_NODE_LOST: {
    http: 503, grpc: 'UNAVAILABLE', message: 'The inference node running the job was lost on every attempt.',
    hint: 'Submit the job again; the platform retried it on other nodes up to its attempt limit.', openaiType: 'server_error', retryable: true,
  },
  JOB_STORE_UNAVAILABLE: {
    http: 503, grpc: 'UNAVAILABLE', message: 'The job store (the database) cannot serve right now: unreachable, restarting or out of space.',
    hint: 'Retry after the Retry-After delay; a refused submission recorded no job.', openaiType: 'server_error', retryable: true,
  },
  JOB_STORAGE_FULL: {
    http: 503, grpc: 'RESOURCE_EXHAUSTED', message: 'The data directory has no space left for the job\'s audio.',
    hint: 'Submit the job again once the operator has freed space under DATA_DIR.', openaiType: 'server_error', retryable: true,
  },
  JOB_RESULT_MISSING: {
    http: 410, grpc: 'NOT_FOUND', message: 'The audio of this job is no longer stored.',
    hint: 'Submit the job again.', openaiType: 'not_found_error', retryable: false,
  },
  JOB_TOKEN_MISSING: {
    http: 401, grpc: 'UNAUTHENTICATED', message: 'This web job operation needs the job token.',
    hint: 'Send the job_token from the creation answer in X-Job-Token or the token query parameter.', openaiType: 'authentication_error', retryable: false,
  },
  JOB_TOKEN_INVALID: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'The job token is forged, malformed or belongs to another job.',
    hint: 'Use the job_token returned when this job was created.', openaiType: 'permission_error', retryable: false,
  },
  JOB_TOKEN_EXPIRED: {
    http: 403, grpc: 'PERMISSION_DENIED', message: 'The job token has expired.',
    hint: 'Job tokens are valid until job_token_expires_unix; submit a new job.', openaiType: 'permission_error', retryable: false,
  },
  JOB_CAPTIONS_UNAVAILABLE: {
    http: 409, grpc: 'FAILED_PRECONDITION', message: 'The job has no word timings, so it has no captions.',
    hint: 'Its engine reports no word timings and the node could not align them (a piper voice not in English, or no speech recognizer installed), or the job completed before timings were kept; use a voice of flite, festival or espeak.', openaiType: 'invalid_request_error', retryable: false,
  },
} as const satisfies Record<string, ErrorSpec>;

/** A stable error code from the catalogue. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** True when `code` is a catalogue code. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code);
}

/**
 * OpenAI's own `error.code` for the platform codes that have an OpenAI counterpart; the rest answer
 * `null` on /v1, as OpenAI does for errors without a code (validation problems get theirs from the
 * failed rule, see {@link openAiValidationCode}).
 */
const OPENAI_CODES: Partial<Record<ErrorCode, string>> = {
  AUTH_KEY_INVALID: 'invalid_api_key',
  AUTH_KEY_DISABLED: 'invalid_api_key',
  TTS_MODEL_NOT_FOUND: 'model_not_found',
  RATE_LIMITED: 'rate_limit_exceeded',
  QUOTA_EXCEEDED: 'insufficient_quota',
  ROUTE_NOT_FOUND: 'unknown_url',
  TTS_TEXT_TOO_LONG: 'string_above_max_length',
};

/** OpenAI's `error.code` for a platform code (null where OpenAI has none). */
export function openAiCodeOf(code: ErrorCode): string | null {
  return OPENAI_CODES[code] ?? (ERROR_CATALOGUE[code].http === 422 ? 'invalid_value' : null);
}

/** OpenAI's `error.code` for a field problem, from its FastAPI-style `type` (e.g. "missing"). */
export function openAiValidationCode(issueType: string): string {
  switch (issueType) {
    case 'missing':
      return 'missing_required_parameter';
    case 'extra_forbidden':
      return 'unknown_parameter';
    case 'string_too_long':
      return 'string_above_max_length';
    default:
      return 'invalid_value';
  }
}

/** ElevenLabs' `detail.type` of an error (see {@link elevenLabsErrorOf}). */
export type ElevenLabsErrorType = 'validation_error' | 'authentication_error' | 'authorization_error' | 'not_found' | 'rate_limit_error' | 'service_unavailable' | 'internal_error';

/** ElevenLabs' own `detail.code` (and legacy `detail.status`) for the platform codes that have one. */
const ELEVENLABS_CODES: Partial<Record<ErrorCode, string>> = {
  AUTH_KEY_MISSING: 'invalid_api_key',
  AUTH_KEY_INVALID: 'invalid_api_key',
  AUTH_KEY_DISABLED: 'invalid_api_key',
  TTS_VOICE_NOT_FOUND: 'voice_not_found',
  TTS_MODEL_NOT_FOUND: 'model_not_found',
  QUOTA_EXCEEDED: 'quota_exceeded',
  RATE_LIMITED: 'rate_limit_exceeded',
  TTS_CONCURRENCY_LIMIT: 'concurrent_limit_exceeded',
  TTS_TEXT_TOO_LONG: 'max_character_limit_exceeded',
  VALIDATION_FAILED: 'invalid_parameters',
  STREAM_CONTEXTS_EXCEEDED: 'max_active_conversations',
};

/**
 * ElevenLabs' `detail.type` and `detail.code` for a platform code: its own code where it has one
 * (invalid_api_key, voice_not_found, quota_exceeded, ...), else the platform code in lower case;
 * the type from the HTTP status.
 */
export function elevenLabsErrorOf(code: ErrorCode): { type: ElevenLabsErrorType; code: string } {
  const http = ERROR_CATALOGUE[code].http;
  const type: ElevenLabsErrorType =
    http === 401 ? 'authentication_error' : http === 403 ? 'authorization_error' : http === 404 ? 'not_found' : http === 429 ? 'rate_limit_error' : http === 503 ? 'service_unavailable' : http >= 500 ? 'internal_error' : 'validation_error';
  return { type, code: ELEVENLABS_CODES[code] ?? code.toLowerCase() };
}
