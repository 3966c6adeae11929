/**
 * /studio/presets: the caller's presets (create, edit, delete after a confirmation, "Use" on the
 * public page, share as a link with "Copy link") and the share links with "Revoke".
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { useCredentials } from '../../lib/credentials.js';
import { OutcomeView, useAction, useOutcome } from '../../components/outcome.js';
import { PresetForm } from './preset-form.js';
import { ShareLink, shareUrl } from './share-link.js';
import { SharesTable } from './shares-table.js';
import { SignedOut, StudioFrame } from './studio-frame.js';
import { createPreset, deletePreset, listPresets, listShares, revokeShare, sharePreset, updatePreset, type Preset, type PresetFields, type Share } from './studio-api.js';
import { useVoices } from './voices.js';
import { Fact } from '../../components/fact.js';
import { Confirm } from '../../components/confirm.js';

/** How long a new share link lives; 0: until revoked. */
const EXPIRIES = [
  [0, 'Until revoked'],
  [86_400, '1 day'],
  [604_800, '7 days'],
  [2_592_000, '30 days'],
] as const;

function PresetItem(props: { preset: Preset; voiceName: string; busy: boolean; confirming: boolean; onEdit: () => void; onShare: () => void; onAskDelete: () => void; onDelete: () => void; onKeep: () => void }) {
  const p = props.preset;
  return (
    <li class="studio-item" data-preset-id={p.preset_id}>
      <h3>
        <span>{p.name}</span>
        {p.forked_from && <span class="badge">Copied from a share</span>}
      </h3>
      <dl class="studio-facts">
        <Fact term="Voice">{props.voiceName}</Fact>
        <Fact term="Speed">{p.speed === null ? 'Normal' : `${p.speed}×`}</Fact>
        <Fact term="Format">{p.format ?? 'Default'}</Fact>
        {p.sample_text && (
          <div class="studio-wide">
            <dt>Sample text</dt>
            <dd>{p.sample_text}</dd>
          </div>
        )}
        {p.notes && (
          <div class="studio-wide">
            <dt>Notes (private)</dt>
            <dd>{p.notes}</dd>
          </div>
        )}
      </dl>
      {props.confirming ? (
        <Confirm
          id={`preset-${p.preset_id}-confirm`}
          question={`Delete “${p.name}”? Its share links stop working. This cannot be undone.`}
          yes="Delete for good"
          no="Keep it"
          danger
          busy={props.busy}
          onYes={props.onDelete}
          onNo={props.onKeep}
        />
      ) : (
        <div class="actions">
          <a class="button" href={`/?preset=${encodeURIComponent(p.preset_id)}`} aria-label={`Use ${p.name}`}>
            Use
          </a>
          <button type="button" class="secondary" onClick={props.onEdit} aria-label={`Edit ${p.name}`}>
            Edit
          </button>
          <button type="button" class="secondary" disabled={props.busy} onClick={props.onShare} aria-label={`Share ${p.name}`}>
            Share
          </button>
          <button type="button" class="secondary" onClick={props.onAskDelete} aria-label={`Delete ${p.name}`}>
            Delete
          </button>
        </div>
      )}
    </li>
  );
}

function Presets() {
  const { voices } = useVoices();
  const [presets, setPresets] = useState<readonly Preset[] | undefined>();
  const [shares, setShares] = useState<readonly Share[]>([]);
  const [editing, setEditing] = useState<Preset | undefined>();
  const [formKey, setFormKey] = useState(0);
  const [confirming, setConfirming] = useState('');
  const [expiry, setExpiry] = useState(0);
  const [made, setMade] = useState<{ name: string; url: string } | undefined>();
  const [outcome, control] = useOutcome();
  const [busy, run] = useAction(control);

  const load = useCallback(async () => {
    try {
      const [p, s] = await Promise.all([listPresets(), listShares()]);
      setPresets(p);
      setShares(s);
    } catch (err) {
      control.fail(err);
    }
  }, [control]);
  useEffect(() => {
    void load();
  }, [load]);

  /** Runs `work`, then reloads the presets and links before saying what it did. */
  const act = (work: () => Promise<string>) =>
    run(async () => {
      const done = await work();
      await load();
      return done;
    });

  const save = (fields: PresetFields) =>
    void act(async () => {
      if (editing) {
        await updatePreset(editing.preset_id, fields);
        setEditing(undefined);
        setFormKey((k) => k + 1);
        return `Saved “${fields.name}”.`;
      }
      await createPreset(fields);
      setFormKey((k) => k + 1);
      return `Created “${fields.name}”.`;
    });
  const share = (p: Preset) =>
    void act(async () => {
      const created = await sharePreset(p.preset_id, expiry || undefined);
      setMade({ name: p.name, url: shareUrl(created.share_token) });
      return `Made a share link for “${p.name}”.`;
    });
  const remove = (p: Preset) =>
    void act(async () => {
      await deletePreset(p.preset_id);
      setConfirming('');
      if (editing?.preset_id === p.preset_id) setEditing(undefined);
      return `Deleted “${p.name}”.`;
    });
  const revoke = (s: Share) =>
    void act(async () => {
      await revokeShare(s.share_id);
      return 'The link is revoked: it no longer opens the preset.';
    });
  const voiceName = (id: string | null) => (id ? (voices.find((v) => v.id === id)?.name ?? id) : 'Default voice');

  return (
    <>
      <OutcomeView outcome={outcome} />
      {made && <ShareLink name={made.name} url={made.url} onClose={() => setMade(undefined)} />}
      <section class="card" aria-labelledby="presets-title">
        <h2 id="presets-title">My presets</h2>
        <div class="row studio-toolbar">
          <div class="field">
            <label for="share-expiry">New share links last</label>
            <select id="share-expiry" value={String(expiry)} onChange={(e) => setExpiry(Number(e.currentTarget.value))}>
              {EXPIRIES.map(([sec, text]) => (
                <option key={sec} value={String(sec)}>
                  {text}
                </option>
              ))}
            </select>
          </div>
        </div>
        {presets === undefined && <p class="hint">Loading presets…</p>}
        {presets?.length === 0 && <p class="hint">No presets yet. Make one below.</p>}
        {presets && presets.length > 0 && (
          <ul class="studio-list">
            {presets.map((p) => (
              <PresetItem
                key={p.preset_id}
                preset={p}
                voiceName={voiceName(p.voice)}
                busy={busy}
                confirming={confirming === p.preset_id}
                onEdit={() => {
                  setEditing(p);
                  setFormKey((k) => k + 1);
                  requestAnimationFrame(() => document.getElementById('preset-name')?.focus());
                }}
                onShare={() => share(p)}
                onAskDelete={() => setConfirming(p.preset_id)}
                onDelete={() => remove(p)}
                onKeep={() => setConfirming('')}
              />
            ))}
          </ul>
        )}
      </section>
      <PresetForm
        key={formKey}
        preset={editing}
        voices={voices}
        busy={busy}
        onSave={save}
        onCancel={() => {
          setEditing(undefined);
          setFormKey((k) => k + 1);
        }}
      />
      <SharesTable shares={shares} presets={presets ?? []} busy={busy} onRevoke={revoke} />
    </>
  );
}

/** The presets page. */
export function PresetsPage() {
  const { studioToken } = useCredentials();
  return (
    <StudioFrame title="Presets" intro="A preset keeps a voice, speed and format; use it on the speech page or share it as a link.">
      {studioToken ? <Presets key={studioToken} /> : <SignedOut what="Presets belong to a studio account." />}
    </StudioFrame>
  );
}
