/**
 * The studio preset the public page was opened with (`/?preset=<preset_id>`, the "Use" link of the
 * studio presets page): loaded from GET /api/studio/presets with the studio session.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, request, type StudioPreset } from '../../lib/api.js';
import type { Schema } from '../../lib/schema.js';
import { messageFor } from '../../lib/messages.js';

/** Where the preset stands: none asked, a studio sign-in needed, loading, loaded, or failed. */
export type PresetState =
  | { readonly kind: 'none' }
  | { readonly kind: 'needs-session' }
  | { readonly kind: 'loading' }
  | { readonly kind: 'ready'; readonly preset: StudioPreset }
  | { readonly kind: 'error'; readonly message: string };

/** Loads preset `presetId` (when given) with the studio session `studioToken`. */
export function usePreset(presetId: string | undefined, studioToken: string | undefined): PresetState {
  const [state, setState] = useState<PresetState>({ kind: 'none' });
  useEffect(() => {
    if (!presetId) return setState({ kind: 'none' });
    if (!studioToken) return setState({ kind: 'needs-session' });
    let stopped = false;
    setState({ kind: 'loading' });
    request<Schema<'StudioPresetList'>>('GET', '/api/studio/presets?limit=500', { auth: 'studio' })
      .then(({ body }) => {
        const preset = body.data.find((p) => p.preset_id === presetId);
        if (!preset) throw new ApiError(404, 'STUDIO_PRESET_NOT_FOUND', 'The preset does not exist.', undefined);
        return preset;
      })
      .then(
        (preset) => !stopped && setState({ kind: 'ready', preset }),
        (err: unknown) => !stopped && setState({ kind: 'error', message: messageFor(err) }),
      );
    return () => {
      stopped = true;
    };
  }, [presetId, studioToken]);
  return state;
}
