/**
 * The preset editor: name, voice (grouped by engine and language), speed, format, a sample text
 * and private notes. Creates a preset, or saves the one being edited.
 */
import { useState } from 'preact/hooks';
import type { Voice } from '../../lib/api.js';
import { VoiceOptions } from '../../components/voice-options.js';
import type { Schema } from '../../lib/schema.js';
import type { Preset, PresetFields } from './studio-api.js';

/** The formats a preset may name (StudioPresetFields.format); '' leaves the choice to the page. */
const FORMATS = [
  ['', 'Default'],
  ['mp3', 'MP3'],
  ['wav', 'WAV'],
  ['opus', 'Opus'],
  ['aac', 'AAC'],
  ['flac', 'FLAC'],
  ['pcm', 'Raw PCM'],
] as const satisfies readonly (readonly ['' | Schema<'AudioFormat'>, string])[];

interface Draft {
  name: string;
  voice: string;
  speed: string;
  format: string;
  sample_text: string;
  notes: string;
}

function draftOf(p: Preset | undefined): Draft {
  return {
    name: p?.name ?? '',
    voice: p?.voice ?? '',
    speed: (p?.speed ?? 1).toString(),
    format: p?.format ?? '',
    sample_text: p?.sample_text ?? '',
    notes: p?.notes ?? '',
  };
}

/** The fields to send; an empty optional field is null (cleared). */
function fieldsOf(d: Draft): PresetFields {
  const speed = Number(d.speed);
  const format = FORMATS.find(([value]) => value === d.format)?.[0];
  return {
    name: d.name.trim(),
    voice: d.voice || null,
    speed: d.speed.trim() && Number.isFinite(speed) ? speed : null,
    format: format || null,
    sample_text: d.sample_text.trim() || null,
    notes: d.notes.trim() || null,
  };
}

/** The editor of a new preset (`preset` undefined) or of `preset`. */
export function PresetForm(props: { preset: Preset | undefined; voices: readonly Voice[]; busy: boolean; onSave: (fields: PresetFields) => void; onCancel: () => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(props.preset));
  const set = (k: keyof Draft) => (e: { currentTarget: { value: string } }) => setDraft({ ...draft, [k]: e.currentTarget.value });
  const speed = Number(draft.speed);
  const speedBad = draft.speed.trim() !== '' && !(speed >= 0.25 && speed <= 4);
  const editing = props.preset !== undefined;
  // A stored voice no node serves now stays selectable, so saving does not change it silently.
  const unknownVoice = draft.voice !== '' && !props.voices.some((v) => v.id === draft.voice);
  return (
    <form
      class="card"
      aria-labelledby="preset-form-title"
      onSubmit={(e) => {
        e.preventDefault();
        if (draft.name.trim() && !speedBad) props.onSave(fieldsOf(draft));
      }}
    >
      <h2 id="preset-form-title">{editing ? `Edit “${props.preset?.name ?? ''}”` : 'New preset'}</h2>
      <label for="preset-name">Name</label>
      <input id="preset-name" maxLength={80} value={draft.name} onInput={set('name')} required />
      <div class="row">
        <div class="field">
          <label for="preset-voice">Voice</label>
          <select id="preset-voice" value={draft.voice} onChange={set('voice')} aria-busy={props.voices.length === 0}>
            <option value="">Default voice</option>
            {unknownVoice && <option value={draft.voice}>{draft.voice} (not available now)</option>}
            <VoiceOptions voices={props.voices} />
          </select>
        </div>
        <div class="field">
          <label for="preset-speed">Speed</label>
          <input id="preset-speed" type="number" min={0.25} max={4} step={0.05} value={draft.speed} onInput={set('speed')} aria-invalid={speedBad} aria-describedby="preset-speed-hint" />
          <p id="preset-speed-hint" class={speedBad ? 'error' : 'hint'}>
            From 0.25 to 4; 1 is normal.
          </p>
        </div>
        <div class="field">
          <label for="preset-format">Format</label>
          <select id="preset-format" value={draft.format} onChange={set('format')}>
            {FORMATS.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </div>
      </div>
      <label for="preset-sample">Sample text</label>
      <textarea id="preset-sample" rows={3} maxLength={1000} value={draft.sample_text} onInput={set('sample_text')} aria-describedby="preset-sample-hint" />
      <p id="preset-sample-hint" class="hint">
        Shown with the preset and through its share links.
      </p>
      <label for="preset-notes">Notes</label>
      <textarea id="preset-notes" rows={2} maxLength={2000} value={draft.notes} onInput={set('notes')} aria-describedby="preset-notes-hint" />
      <p id="preset-notes-hint" class="hint">
        Private: never shown through a share link.
      </p>
      <div class="actions">
        <button type="submit" disabled={props.busy || !draft.name.trim() || speedBad}>
          {editing ? 'Save changes' : 'Create preset'}
        </button>
        {editing && (
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
