import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { ListVoicesRequest, ListVoicesResponse, Voice } from '@tts/proto/synthesis';
import { canonicalEngineName } from '../engines/registry.js';
import type { VoiceDescriptor } from '../engines/engine.js';
import type { NodeContext } from '../domain/node-context.js';

/** Proto form of a voice; `loaded` is false while its engine is unloaded for idleness. */
export function toProtoVoice(v: VoiceDescriptor, loaded = true): Voice {
  return {
    id: v.id,
    name: v.name,
    engine: v.engine,
    language: v.language,
    languages: [...v.languages],
    gender: v.gender,
    sampleRate: v.sampleRate,
    quality: v.quality,
    loaded,
    description: v.description,
  };
}

/** ListVoices: voices of the node's ready engines, optionally filtered by engine and language prefix. */
export function listVoices(ctx: NodeContext) {
  return (call: ServerUnaryCall<ListVoicesRequest, ListVoicesResponse>, callback: sendUnaryData<ListVoicesResponse>): void => {
    const engine = call.request.engine === '' ? '' : canonicalEngineName(call.request.engine);
    const lang = call.request.language.toLowerCase();
    const voices = ctx.registry
      .voices()
      .filter((v) => engine === '' || v.engine === engine)
      .filter((v) => lang === '' || v.languages.some((l) => l.toLowerCase().startsWith(lang)) || v.language.toLowerCase().startsWith(lang))
      .map((v) => toProtoVoice(v, ctx.registry.isLoaded(v)));
    callback(null, { voices });
  };
}
