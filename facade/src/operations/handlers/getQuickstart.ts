import { handler } from '../../handler-context.js';

/** GET /api/quickstart: copy-paste examples for this deployment's address. */
export const getQuickstart = handler('getQuickstart', ['config'], async ({ req, res, deps }) => {
  const base = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  const voice = deps.config.defaultVoice;
  res.json({
    base_url: base,
    default_voice: voice,
    docs: `${base}/api/openapi/export?format=yaml`,
    examples: [
      {
        title: 'Synthesize a WAV file',
        method: 'POST',
        path: '/api/tts',
        curl: `curl -sS -X POST ${base}/api/tts -H 'Content-Type: application/json' -d '{"text":"Hello from the platform.","voice":"${voice}","format":"wav"}' -o hello.wav`,
      },
      {
        title: 'OpenAI-compatible speech (mp3, streamed)',
        method: 'POST',
        path: '/v1/audio/speech',
        curl: `curl -sS -X POST ${base}/v1/audio/speech -H 'Content-Type: application/json' -d '{"model":"tts-1","input":"Hello world!","voice":"alloy"}' -o hello.mp3`,
      },
      { title: 'List voices', method: 'GET', path: '/v1/audio/voices', curl: `curl -sS ${base}/v1/audio/voices` },
      { title: 'Health', method: 'GET', path: '/api/health', curl: `curl -sS ${base}/api/health` },
    ],
  });
});
