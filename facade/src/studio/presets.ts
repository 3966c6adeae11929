/**
 * Presets and their share links.
 *
 * A preset holds a voice setup (name, voice, engine, speed, format, sample text, notes, optionally a
 * stored reference clip for clone mode). Every read and write is scoped to its owner: another user's
 * preset is not found (404), never forbidden, so ids reveal nothing.
 *
 * A share is an unguessable link (`shs_` + 43 base62 characters, 256 bits; only its SHA-256 is
 * stored, so the link is shown once, at creation) to one preset, optionally expiring. Anyone with the
 * link reads the shared setup without anything private of the owner (no owner id or name, no notes,
 * no reference clip); a signed-in studio user forks it into their own presets, keeping a link to the
 * origin. A revoked or expired share answers 410 with its code, an unknown one 404.
 */
import { randomBytes } from 'node:crypto';
import { TtsError } from '@tts/common';
import type { LexiconEntryRecord, PresetFields, StudioPreset, StudioRepository, StudioShare } from '../data/index.js';
import { randomString, sha256Hex } from '../identity/crypto.js';
import type { ClusterView } from '../cluster/cluster.js';
import { lexiconEntryJson } from '../speech/lexicons.js';
import type { StudioPrincipal } from './accounts.js';

/** How many presets and active shares each kind of account may hold. */
export const STUDIO_LIMITS = {
  guest: { presets: 10, shares: 5 },
  registered: { presets: 50, shares: 20 },
  vip: { presets: 500, shares: 200 },
} as const;

/** The limits of a principal. */
export function limitsOf(p: StudioPrincipal): { presets: number; shares: number } {
  if (p.vip) return STUDIO_LIMITS.vip;
  return p.user.kind === 'guest' ? STUDIO_LIMITS.guest : STUDIO_LIMITS.registered;
}

/** A preset body (create: name required; update: any subset, null clears an optional field). */
export interface PresetInput {
  readonly name?: string | undefined;
  readonly voice?: string | null | undefined;
  readonly engine?: string | null | undefined;
  readonly speed?: number | null | undefined;
  readonly format?: string | null | undefined;
  readonly sample_text?: string | null | undefined;
  readonly notes?: string | null | undefined;
  readonly reference_id?: string | null | undefined;
}

/** Checks a reference id against the caller's stored clips. */
export type ReferenceCheck = (ownerId: string, referenceId: string) => Promise<boolean>;

/** Presets and shares of studio users. */
export class StudioPresets {
  constructor(
    private readonly repo: StudioRepository,
    private readonly cluster: ClusterView,
    private readonly referenceExists: ReferenceCheck,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private async checkFields(p: StudioPrincipal, f: PresetFields): Promise<void> {
    if (f.name.trim() === '') throw new TtsError('VALIDATION_FAILED', 'name is empty.', { loc: ['body', 'name'] });
    if (f.voice !== null || f.engine !== null) {
      // Checked against the voices the ready nodes serve, when the engine is known to them.
      const snap = await this.cluster.snapshot().catch(() => undefined);
      if (snap) {
        if (f.engine !== null && snap.knownEngines.length > 0 && !snap.knownEngines.includes(f.engine)) {
          throw new TtsError('TTS_ENGINE_NOT_FOUND', `Engine "${f.engine}" does not exist.`, { loc: ['body', 'engine'] });
        }
        if (f.voice !== null && f.voice.includes(':')) {
          const engineOfVoice = f.voice.slice(0, f.voice.indexOf(':'));
          if (f.engine !== null && engineOfVoice !== f.engine) throw new TtsError('TTS_ENGINE_VOICE_MISMATCH', undefined, { loc: ['body', 'voice'] });
          if (snap.knownEngines.includes(engineOfVoice) && snap.voices.length > 0 && !snap.voices.some((v) => v.id === f.voice)) {
            throw new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${f.voice}" does not exist.`, { loc: ['body', 'voice'] });
          }
        }
      }
    }
    if (f.referenceId !== null && !(await this.referenceExists(`studio:${p.user.userId}`, f.referenceId))) {
      throw new TtsError('REFERENCE_NOT_FOUND', undefined, { loc: ['body', 'reference_id'] });
    }
  }

  async list(p: StudioPrincipal, limit: number): Promise<StudioPreset[]> {
    return this.repo.listPresets(p.user.userId, limit);
  }

  async create(p: StudioPrincipal, input: PresetInput & { name: string }): Promise<StudioPreset> {
    const fields = fieldsOf(input, undefined);
    await this.checkFields(p, fields);
    const limit = limitsOf(p).presets;
    if ((await this.repo.countPresets(p.user.userId)) >= limit) throw new TtsError('STUDIO_PRESET_LIMIT_REACHED', `This account may hold ${limit} presets.`);
    return this.repo.createPreset({ ...fields, presetId: `pst_${randomBytes(12).toString('base64url')}`, userId: p.user.userId });
  }

  async get(p: StudioPrincipal, presetId: string): Promise<StudioPreset> {
    const preset = await this.repo.preset(p.user.userId, presetId);
    if (!preset) throw new TtsError('STUDIO_PRESET_NOT_FOUND', undefined, { loc: ['path', 'preset_id'] });
    return preset;
  }

  async update(p: StudioPrincipal, presetId: string, input: PresetInput): Promise<StudioPreset> {
    const current = await this.get(p, presetId);
    const fields = fieldsOf(input, current);
    await this.checkFields(p, fields);
    const updated = await this.repo.updatePreset(p.user.userId, presetId, fields);
    if (!updated) throw new TtsError('STUDIO_PRESET_NOT_FOUND', undefined, { loc: ['path', 'preset_id'] });
    return updated;
  }

  async remove(p: StudioPrincipal, presetId: string): Promise<void> {
    if (!(await this.repo.deletePreset(p.user.userId, presetId))) throw new TtsError('STUDIO_PRESET_NOT_FOUND', undefined, { loc: ['path', 'preset_id'] });
  }

  /** Shares a preset; the token is in the answer only. */
  async share(p: StudioPrincipal, presetId: string, expiresInSec: number | undefined): Promise<{ share: StudioShare; token: string }> {
    await this.get(p, presetId);
    const limit = limitsOf(p).shares;
    if ((await this.repo.countActiveShares(p.user.userId, this.now())) >= limit) throw new TtsError('STUDIO_SHARE_LIMIT_REACHED', `This account may hold ${limit} active shares.`);
    const token = `shs_${randomString(43)}`;
    const expiresAt = expiresInSec === undefined ? null : new Date(this.now().getTime() + expiresInSec * 1000);
    const share = await this.repo.createShare({ shareId: `shr_${randomBytes(12).toString('base64url')}`, tokenSha256: sha256Hex(token), presetId, userId: p.user.userId, expiresAt });
    return { share, token };
  }

  async shares(p: StudioPrincipal, limit: number): Promise<StudioShare[]> {
    return this.repo.listShares(p.user.userId, limit);
  }

  async revoke(p: StudioPrincipal, shareId: string): Promise<StudioShare> {
    const share = await this.repo.revokeShare(p.user.userId, shareId);
    if (!share) throw new TtsError('STUDIO_SHARE_NOT_FOUND', undefined, { loc: ['path', 'share_id'] });
    return share;
  }

  /** The live share of a link; 404 unknown, 410 revoked or expired. */
  async open(token: string): Promise<{ share: StudioShare; preset: StudioPreset }> {
    const found = token.startsWith('shs_') && token.length <= 64 ? await this.repo.shareByToken(sha256Hex(token)) : undefined;
    if (!found) throw new TtsError('STUDIO_SHARE_NOT_FOUND', undefined, { loc: ['path', 'share_token'] });
    if (found.share.revokedAt !== null) throw new TtsError('STUDIO_SHARE_REVOKED', undefined, { loc: ['path', 'share_token'] });
    if (found.share.expiresAt !== null && found.share.expiresAt.getTime() <= this.now().getTime()) throw new TtsError('STUDIO_SHARE_EXPIRED', undefined, { loc: ['path', 'share_token'] });
    return found;
  }

  /** Copies a shared preset into the caller's presets (what the share shows: no notes, no reference clip). */
  async fork(p: StudioPrincipal, token: string, name: string | undefined): Promise<StudioPreset> {
    const { share, preset } = await this.open(token);
    const limit = limitsOf(p).presets;
    if ((await this.repo.countPresets(p.user.userId)) >= limit) throw new TtsError('STUDIO_PRESET_LIMIT_REACHED', `This account may hold ${limit} presets.`);
    return this.repo.fork(share.shareId, {
      presetId: `pst_${randomBytes(12).toString('base64url')}`,
      userId: p.user.userId,
      name: name?.trim() || preset.name,
      voice: preset.voice,
      engine: preset.engine,
      speed: preset.speed,
      format: preset.format,
      sampleText: preset.sampleText,
      notes: null,
      referenceId: null,
      forkedFromShareId: share.shareId,
      forkedFromPresetId: preset.presetId,
    });
  }
}

function pick<T>(value: T | null | undefined, current: T | null | undefined): T | null {
  return value === undefined ? (current ?? null) : value;
}

function fieldsOf(input: PresetInput, current: StudioPreset | undefined): PresetFields {
  return {
    name: (input.name ?? current?.name ?? '').trim(),
    voice: pick(input.voice, current?.voice),
    engine: pick(input.engine, current?.engine),
    speed: pick(input.speed, current?.speed),
    format: pick(input.format, current?.format),
    sampleText: pick(input.sample_text, current?.sampleText),
    notes: pick(input.notes, current?.notes),
    referenceId: pick(input.reference_id, current?.referenceId),
  };
}

/** The owner's JSON of a preset. */
export function presetJson(p: StudioPreset): Record<string, unknown> {
  return {
    preset_id: p.presetId,
    name: p.name,
    voice: p.voice,
    engine: p.engine,
    speed: p.speed,
    format: p.format,
    sample_text: p.sampleText,
    notes: p.notes,
    reference_id: p.referenceId,
    forked_from: p.forkedFromShareId === null ? null : { share_id: p.forkedFromShareId },
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** The state of a share at `now`. */
export function shareState(s: StudioShare, now: Date): 'active' | 'revoked' | 'expired' {
  if (s.revokedAt !== null) return 'revoked';
  if (s.expiresAt !== null && s.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** The owner's JSON of a share (the token is added only at creation). */
export function shareJson(s: StudioShare, now: Date = new Date()): Record<string, unknown> {
  return {
    share_id: s.shareId,
    preset_id: s.presetId,
    status: shareState(s, now),
    created_at: s.createdAt.toISOString(),
    expires_at: s.expiresAt?.toISOString() ?? null,
    revoked_at: s.revokedAt?.toISOString() ?? null,
    fork_count: s.forkCount,
  };
}

/**
 * What anyone with the link sees: the setup, nothing private of the owner. The preset's
 * pronunciation lexicon is part of the setup (a fork copies it), so it is shown too.
 */
export function publicShareJson(s: StudioShare, p: StudioPreset, lexicon: readonly LexiconEntryRecord[]): Record<string, unknown> {
  return {
    preset: { name: p.name, voice: p.voice, engine: p.engine, speed: p.speed, format: p.format, sample_text: p.sampleText },
    lexicon: lexicon.map(lexiconEntryJson),
    shared_at: s.createdAt.toISOString(),
    expires_at: s.expiresAt?.toISOString() ?? null,
    fork_count: s.forkCount,
  };
}
