/**
 * The studio tables: users, sessions, presets, shares, VIP requests and the append-only studio
 * audit. Every preset and share read or write filters by its owner, so another user's row is simply
 * not found. Tokens (sessions, shares) are stored only as SHA-256 digests.
 */
import type { Database, Queryable } from '@tts/common/data';
import { TtsError } from '@tts/common';

/** Account kinds: a guest (token only), a registered user, a deleted (anonymized) account. */
export type StudioUserKind = 'guest' | 'registered' | 'deleted';

/** Roles of a studio user. */
export type StudioRole = 'user' | 'admin';

/** A stored user. */
export interface StudioUser {
  readonly userId: string;
  readonly kind: StudioUserKind;
  readonly username: string | null;
  readonly email: string | null;
  readonly passwordHash: string | null;
  readonly role: StudioRole;
  readonly vipUntil: Date | null;
  readonly disabled: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly lastLoginAt: Date | null;
}

/** A live session with its user. */
export interface StudioSessionRow {
  readonly sessionId: string;
  readonly user: StudioUser;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
  readonly expiresAt: Date;
  readonly absoluteExpiresAt: Date;
}

/** What a preset holds. */
export interface PresetFields {
  readonly name: string;
  readonly voice: string | null;
  readonly engine: string | null;
  readonly speed: number | null;
  readonly format: string | null;
  readonly sampleText: string | null;
  readonly notes: string | null;
  readonly referenceId: string | null;
}

/** A stored preset. */
export interface StudioPreset extends PresetFields {
  readonly presetId: string;
  readonly userId: string;
  readonly forkedFromShareId: string | null;
  readonly forkedFromPresetId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A stored share link. */
export interface StudioShare {
  readonly shareId: string;
  readonly presetId: string;
  readonly userId: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
  readonly forkCount: number;
}

/** Status of a VIP request. */
export type VipStatus = 'pending_review' | 'approved' | 'rejected';

/** A stored VIP request. */
export interface VipRequest {
  readonly requestId: string;
  readonly userId: string;
  readonly source: 'slip' | 'manual';
  readonly planId: string;
  readonly status: VipStatus;
  /** Why the request is in its status (e.g. `slip_verified`, `slip_fraud`, `provider_timeout`, `admin_approved`). */
  readonly reason: string;
  readonly message: string | null;
  readonly expectedAmount: number | null;
  readonly slipSha256: string | null;
  readonly provider: string | null;
  readonly providerVerdict: string | null;
  readonly providerCode: number | null;
  readonly providerMessage: string | null;
  readonly transRef: string | null;
  readonly slipAmount: number | null;
  readonly vipUntil: Date | null;
  readonly decidedBy: string | null;
  readonly decidedAt: Date | null;
  readonly createdAt: Date;
}

/** One audited studio state change. */
export interface StudioAuditEntry {
  readonly at: Date;
  readonly actor: string;
  readonly userId: string;
  readonly action: string;
  readonly vipRequestId: string | null;
  readonly fromState: string | null;
  readonly toState: string | null;
  readonly detail: Record<string, unknown> | null;
}

/** An audit entry to write. */
export type NewAuditEntry = Omit<StudioAuditEntry, 'at'> & { readonly requestRef?: string | undefined };

type Row = Record<string, unknown>;

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const date = (v: unknown): Date | null => (v === null || v === undefined ? null : (v as Date));

const USER_COLUMNS = 'user_id, kind, username, email, password_hash, role, vip_until, disabled, created_at, updated_at, last_login_at';

function userOf(r: Row, prefix = ''): StudioUser {
  return {
    userId: String(r[`${prefix}user_id`]),
    kind: r[`${prefix}kind`] as StudioUserKind,
    username: str(r[`${prefix}username`]),
    email: str(r[`${prefix}email`]),
    passwordHash: str(r[`${prefix}password_hash`]),
    role: r[`${prefix}role`] as StudioRole,
    vipUntil: date(r[`${prefix}vip_until`]),
    disabled: r[`${prefix}disabled`] === true,
    createdAt: r[`${prefix}created_at`] as Date,
    updatedAt: r[`${prefix}updated_at`] as Date,
    lastLoginAt: date(r[`${prefix}last_login_at`]),
  };
}

const PRESET_COLUMNS = 'preset_id, user_id, name, voice, engine, speed, format, sample_text, notes, reference_id, forked_from_share_id, forked_from_preset_id, created_at, updated_at';

function presetOf(r: Row): StudioPreset {
  return {
    presetId: String(r['preset_id']),
    userId: String(r['user_id']),
    name: String(r['name']),
    voice: str(r['voice']),
    engine: str(r['engine']),
    speed: num(r['speed']),
    format: str(r['format']),
    sampleText: str(r['sample_text']),
    notes: str(r['notes']),
    referenceId: str(r['reference_id']),
    forkedFromShareId: str(r['forked_from_share_id']),
    forkedFromPresetId: str(r['forked_from_preset_id']),
    createdAt: r['created_at'] as Date,
    updatedAt: r['updated_at'] as Date,
  };
}

const SHARE_COLUMNS = 'share_id, preset_id, user_id, created_at, expires_at, revoked_at, fork_count';

function shareOf(r: Row): StudioShare {
  return {
    shareId: String(r['share_id']),
    presetId: String(r['preset_id']),
    userId: String(r['user_id']),
    createdAt: r['created_at'] as Date,
    expiresAt: date(r['expires_at']),
    revokedAt: date(r['revoked_at']),
    forkCount: Number(r['fork_count']),
  };
}

const VIP_COLUMNS = 'request_id, user_id, source, plan_id, status, reason, message, expected_amount, slip_sha256, provider, provider_verdict, provider_code, provider_message, trans_ref, slip_amount, vip_until, decided_by, decided_at, created_at';

function vipOf(r: Row): VipRequest {
  return {
    requestId: String(r['request_id']),
    userId: String(r['user_id']),
    source: r['source'] as 'slip' | 'manual',
    planId: String(r['plan_id']),
    status: r['status'] as VipStatus,
    reason: String(r['reason']),
    message: str(r['message']),
    expectedAmount: num(r['expected_amount']),
    slipSha256: str(r['slip_sha256']),
    provider: str(r['provider']),
    providerVerdict: str(r['provider_verdict']),
    providerCode: num(r['provider_code']),
    providerMessage: str(r['provider_message']),
    transRef: str(r['trans_ref']),
    slipAmount: num(r['slip_amount']),
    vipUntil: date(r['vip_until']),
    decidedBy: str(r['decided_by']),
    decidedAt: date(r['decided_at']),
    createdAt: r['created_at'] as Date,
  };
}

/** Writes one audit entry (inside the caller's transaction). */
export async function writeStudioAudit(q: Queryable, e: NewAuditEntry): Promise<void> {
  await q.query(
    `INSERT INTO studio_audit (actor, user_id, action, vip_request_id, from_state, to_state, detail, request_ref)
     VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::jsonb, $8::text)`,
    [e.actor, e.userId, e.action, e.vipRequestId, e.fromState, e.toState, e.detail === null ? null : JSON.stringify(e.detail), e.requestRef ?? null],
  );
}

/** A new user row. */
export interface NewStudioUser {
  readonly userId: string;
  readonly kind: 'guest' | 'registered';
  readonly username: string | null;
  readonly usernameKey: string | null;
  /** The username's confusable skeleton (studio/usernames.ts), unique. */
  readonly usernameSkeleton: string | null;
  readonly email: string | null;
  readonly emailKey: string | null;
  readonly passwordHash: string | null;
}

/** A new session row. */
export interface NewStudioSession {
  readonly sessionId: string;
  readonly tokenSha256: string;
  readonly userId: string;
  readonly expiresAt: Date;
  readonly absoluteExpiresAt: Date;
}

/** Reads and writes the studio tables. */
export class StudioRepository {
  constructor(readonly db: Database) {}

  // ---- users and sessions

  async createUser(u: NewStudioUser, audit: NewAuditEntry, q: Queryable = this.db): Promise<StudioUser> {
    const rows = await q.query<Row>(
      `INSERT INTO studio_users (user_id, kind, username, username_key, username_skeleton, email, email_key, password_hash)
       VALUES ($1::text, $2::text, $3::text, $4::text, $8::text, $5::text, $6::text, $7::text) RETURNING ${USER_COLUMNS}`,
      [u.userId, u.kind, u.username, u.usernameKey, u.email, u.emailKey, u.passwordHash, u.usernameSkeleton],
    );
    await writeStudioAudit(q, audit);
    return userOf(rows[0]!);
  }

  /** Turns a guest into a registered user, keeping its id (and so its presets). */
  async registerGuest(userId: string, u: Omit<NewStudioUser, 'userId' | 'kind'>, audit: NewAuditEntry): Promise<StudioUser | undefined> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<Row>(
        `UPDATE studio_users SET kind = 'registered', username = $2::text, username_key = $3::text, username_skeleton = $7::text, email = $4::text, email_key = $5::text, password_hash = $6::text, updated_at = now()
         WHERE user_id = $1::text AND kind = 'guest' RETURNING ${USER_COLUMNS}`,
        [userId, u.username, u.usernameKey, u.email, u.emailKey, u.passwordHash, u.usernameSkeleton],
      );
      if (!rows[0]) return undefined;
      await writeStudioAudit(tx, audit);
      return userOf(rows[0]);
    });
  }

  /** True when a user holds a username of this skeleton. */
  async usernameSkeletonTaken(skeleton: string): Promise<boolean> {
    return (await this.db.query<Row>('SELECT 1 FROM studio_users WHERE username_skeleton = $1::text LIMIT 1', [skeleton])).length > 0;
  }

  /** Usernames stored before their skeleton was (at most `limit`). */
  async usernamesWithoutSkeleton(limit: number): Promise<{ userId: string; username: string }[]> {
    const rows = await this.db.query<Row>('SELECT user_id, username FROM studio_users WHERE username IS NOT NULL AND username_skeleton IS NULL ORDER BY created_at LIMIT $1::int', [limit]);
    return rows.map((r) => ({ userId: String(r['user_id']), username: String(r['username']) }));
  }

  /** Stores a username's skeleton; false when another user already holds it (the row is left without). */
  async setUsernameSkeleton(userId: string, skeleton: string): Promise<boolean> {
    const rows = await this.db.query<Row>(
      'UPDATE studio_users SET username_skeleton = $2::text WHERE user_id = $1::text AND NOT EXISTS (SELECT 1 FROM studio_users WHERE username_skeleton = $2::text) RETURNING user_id',
      [userId, skeleton],
    );
    return rows.length > 0;
  }

  async userByLogin(loginKey: string): Promise<StudioUser | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${USER_COLUMNS} FROM studio_users WHERE username_key = $1::text OR email_key = $1::text LIMIT 1`, [loginKey]);
    return rows[0] === undefined ? undefined : userOf(rows[0]);
  }

  async user(userId: string): Promise<StudioUser | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${USER_COLUMNS} FROM studio_users WHERE user_id = $1::text`, [userId]);
    return rows[0] === undefined ? undefined : userOf(rows[0]);
  }

  async listUsers(limit: number): Promise<StudioUser[]> {
    const rows = await this.db.query<Row>(`SELECT ${USER_COLUMNS} FROM studio_users WHERE kind <> 'deleted' ORDER BY created_at DESC, user_id LIMIT $1::integer`, [limit]);
    return rows.map((r) => userOf(r));
  }

  async createSession(s: NewStudioSession, q: Queryable = this.db): Promise<void> {
    await q.query(
      'INSERT INTO studio_sessions (session_id, token_sha256, user_id, expires_at, absolute_expires_at) VALUES ($1::text, $2::text, $3::text, $4::timestamptz, $5::timestamptz)',
      [s.sessionId, s.tokenSha256, s.userId, s.expiresAt, s.absoluteExpiresAt],
    );
  }

  /** The live session of a token digest (not expired), with its user; undefined otherwise. */
  async session(tokenSha256: string, now: Date): Promise<StudioSessionRow | undefined> {
    const rows = await this.db.query<Row>(
      `SELECT s.session_id, s.created_at AS s_created_at, s.last_seen_at, s.expires_at, s.absolute_expires_at,
              u.user_id AS u_user_id, u.kind AS u_kind, u.username AS u_username, u.email AS u_email, u.password_hash AS u_password_hash, u.role AS u_role,
              u.vip_until AS u_vip_until, u.disabled AS u_disabled, u.created_at AS u_created_at, u.updated_at AS u_updated_at, u.last_login_at AS u_last_login_at
       FROM studio_sessions s JOIN studio_users u ON u.user_id = s.user_id
       WHERE s.token_sha256 = $1::text AND s.expires_at > $2::timestamptz AND s.absolute_expires_at > $2::timestamptz`,
      [tokenSha256, now],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      sessionId: String(r['session_id']),
      user: userOf(r, 'u_'),
      createdAt: r['s_created_at'] as Date,
      lastSeenAt: r['last_seen_at'] as Date,
      expiresAt: r['expires_at'] as Date,
      absoluteExpiresAt: r['absolute_expires_at'] as Date,
    };
  }

  /** Slides a session's expiry (never past its absolute cap). */
  async touchSession(sessionId: string, now: Date, expiresAt: Date): Promise<void> {
    await this.db.query('UPDATE studio_sessions SET last_seen_at = $2::timestamptz, expires_at = LEAST($3::timestamptz, absolute_expires_at) WHERE session_id = $1::text', [sessionId, now, expiresAt]);
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    const rows = await this.db.query<Row>('DELETE FROM studio_sessions WHERE session_id = $1::text RETURNING session_id', [sessionId]);
    return rows.length > 0;
  }

  /** Deletes the user's sessions except `keep`; the number removed. */
  async deleteSessions(userId: string, keep: string | null, q: Queryable = this.db): Promise<number> {
    const rows = await q.query<Row>('DELETE FROM studio_sessions WHERE user_id = $1::text AND session_id <> $2::text RETURNING session_id', [userId, keep ?? '']);
    return rows.length;
  }

  async noteLogin(userId: string): Promise<void> {
    await this.db.query('UPDATE studio_users SET last_login_at = now() WHERE user_id = $1::text', [userId]);
  }

  /** Changes the password hash and removes the other sessions, audited, in one transaction. */
  async changePassword(userId: string, passwordHash: string, keepSession: string, audit: NewAuditEntry): Promise<number> {
    return this.db.transaction(async (tx) => {
      await tx.query('UPDATE studio_users SET password_hash = $2::text, updated_at = now() WHERE user_id = $1::text', [userId, passwordHash]);
      const revoked = await this.deleteSessions(userId, keepSession, tx);
      await writeStudioAudit(tx, { ...audit, detail: { ...(audit.detail ?? {}), sessions_revoked: revoked } });
      return revoked;
    });
  }

  /**
   * Deletes an account: sessions, presets and shares removed; the user row anonymized (name, email,
   * password cleared, kind `deleted`), so VIP requests and audits keep their subject.
   */
  async deleteAccount(userId: string, audit: NewAuditEntry): Promise<{ presets: number; shares: number; sessions: number }> {
    return this.db.transaction(async (tx) => {
      const shares = await tx.query<Row>('DELETE FROM studio_shares WHERE user_id = $1::text RETURNING share_id', [userId]);
      const presets = await tx.query<Row>('DELETE FROM studio_presets WHERE user_id = $1::text RETURNING preset_id', [userId]);
      const sessions = await tx.query<Row>('DELETE FROM studio_sessions WHERE user_id = $1::text RETURNING session_id', [userId]);
      // The user's own pronunciation lexicon goes with the account (its presets' went with them).
      await tx.query("DELETE FROM lexicon_entries WHERE lexicon_id = 'owner:studio:' || $1::text", [userId]);
      await tx.query(
        `UPDATE studio_users SET kind = 'deleted', username = NULL, username_key = NULL, username_skeleton = NULL, email = NULL, email_key = NULL, password_hash = NULL, vip_until = NULL, deleted_at = now(), updated_at = now()
         WHERE user_id = $1::text`,
        [userId],
      );
      await tx.query('UPDATE studio_vip_requests SET message = NULL WHERE user_id = $1::text', [userId]);
      const counts = { presets: presets.length, shares: shares.length, sessions: sessions.length };
      await writeStudioAudit(tx, { ...audit, detail: counts });
      return counts;
    });
  }

  /** Applies an administrator's change to a user, audited; revokes sessions when disabling. */
  async updateUser(userId: string, change: { role?: StudioRole; vipUntil?: Date | null; disabled?: boolean }, audits: (before: StudioUser) => NewAuditEntry[]): Promise<StudioUser | undefined> {
    return this.db.transaction(async (tx) => {
      const current = await tx.query<Row>(`SELECT ${USER_COLUMNS} FROM studio_users WHERE user_id = $1::text AND kind <> 'deleted' FOR UPDATE`, [userId]);
      if (!current[0]) return undefined;
      const before = userOf(current[0]);
      const rows = await tx.query<Row>(
        `UPDATE studio_users SET role = $2::text, vip_until = $3::timestamptz, disabled = $4::boolean, updated_at = now() WHERE user_id = $1::text RETURNING ${USER_COLUMNS}`,
        [userId, change.role ?? before.role, change.vipUntil === undefined ? before.vipUntil : change.vipUntil, change.disabled ?? before.disabled],
      );
      if (change.disabled === true) await this.deleteSessions(userId, null, tx);
      for (const a of audits(before)) await writeStudioAudit(tx, a);
      return userOf(rows[0]!);
    });
  }

  // ---- presets

  async countPresets(userId: string): Promise<number> {
    const rows = await this.db.query<Row>('SELECT count(*)::int8 AS n FROM studio_presets WHERE user_id = $1::text', [userId]);
    return Number(rows[0]!['n']);
  }

  async createPreset(p: PresetFields & { presetId: string; userId: string; forkedFromShareId?: string | null; forkedFromPresetId?: string | null }, q: Queryable = this.db): Promise<StudioPreset> {
    const rows = await q.query<Row>(
      `INSERT INTO studio_presets (preset_id, user_id, name, voice, engine, speed, format, sample_text, notes, reference_id, forked_from_share_id, forked_from_preset_id)
       VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::float8, $7::text, $8::text, $9::text, $10::text, $11::text, $12::text) RETURNING ${PRESET_COLUMNS}`,
      [p.presetId, p.userId, p.name, p.voice, p.engine, p.speed, p.format, p.sampleText, p.notes, p.referenceId, p.forkedFromShareId ?? null, p.forkedFromPresetId ?? null],
    );
    return presetOf(rows[0]!);
  }

  async listPresets(userId: string, limit: number): Promise<StudioPreset[]> {
    const rows = await this.db.query<Row>(`SELECT ${PRESET_COLUMNS} FROM studio_presets WHERE user_id = $1::text ORDER BY created_at DESC, preset_id LIMIT $2::integer`, [userId, limit]);
    return rows.map(presetOf);
  }

  async preset(userId: string, presetId: string): Promise<StudioPreset | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${PRESET_COLUMNS} FROM studio_presets WHERE preset_id = $1::text AND user_id = $2::text`, [presetId, userId]);
    return rows[0] === undefined ? undefined : presetOf(rows[0]);
  }

  async updatePreset(userId: string, presetId: string, f: PresetFields): Promise<StudioPreset | undefined> {
    const rows = await this.db.query<Row>(
      `UPDATE studio_presets SET name = $3::text, voice = $4::text, engine = $5::text, speed = $6::float8, format = $7::text, sample_text = $8::text, notes = $9::text, reference_id = $10::text, updated_at = now()
       WHERE preset_id = $1::text AND user_id = $2::text RETURNING ${PRESET_COLUMNS}`,
      [presetId, userId, f.name, f.voice, f.engine, f.speed, f.format, f.sampleText, f.notes, f.referenceId],
    );
    return rows[0] === undefined ? undefined : presetOf(rows[0]);
  }

  async deletePreset(userId: string, presetId: string): Promise<boolean> {
    const rows = await this.db.query<Row>('DELETE FROM studio_presets WHERE preset_id = $1::text AND user_id = $2::text RETURNING preset_id', [presetId, userId]);
    return rows.length > 0;
  }

  // ---- shares

  async countActiveShares(userId: string, now: Date): Promise<number> {
    const rows = await this.db.query<Row>(
      'SELECT count(*)::int8 AS n FROM studio_shares WHERE user_id = $1::text AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2::timestamptz)',
      [userId, now],
    );
    return Number(rows[0]!['n']);
  }

  async createShare(s: { shareId: string; tokenSha256: string; presetId: string; userId: string; expiresAt: Date | null }): Promise<StudioShare> {
    const rows = await this.db.query<Row>(
      `INSERT INTO studio_shares (share_id, token_sha256, preset_id, user_id, expires_at) VALUES ($1::text, $2::text, $3::text, $4::text, $5::timestamptz) RETURNING ${SHARE_COLUMNS}`,
      [s.shareId, s.tokenSha256, s.presetId, s.userId, s.expiresAt],
    );
    return shareOf(rows[0]!);
  }

  async listShares(userId: string, limit: number): Promise<StudioShare[]> {
    const rows = await this.db.query<Row>(`SELECT ${SHARE_COLUMNS} FROM studio_shares WHERE user_id = $1::text ORDER BY created_at DESC, share_id LIMIT $2::integer`, [userId, limit]);
    return rows.map(shareOf);
  }

  /** Revokes the owner's share; undefined when it is not the owner's. Revoking twice keeps the first time. */
  async revokeShare(userId: string, shareId: string): Promise<StudioShare | undefined> {
    const rows = await this.db.query<Row>(
      `UPDATE studio_shares SET revoked_at = COALESCE(revoked_at, now()) WHERE share_id = $1::text AND user_id = $2::text RETURNING ${SHARE_COLUMNS}`,
      [shareId, userId],
    );
    return rows[0] === undefined ? undefined : shareOf(rows[0]);
  }

  /** A share by its token digest with its preset (whatever its state: the caller decides 404/410). */
  async shareByToken(tokenSha256: string): Promise<{ share: StudioShare; preset: StudioPreset } | undefined> {
    const rows = await this.db.query<Row>(
      `SELECT ${SHARE_COLUMNS.split(', ').map((c) => `s.${c}`).join(', ')}, ${PRESET_COLUMNS.split(', ').map((c) => `p.${c} AS p_${c}`).join(', ')}
       FROM studio_shares s JOIN studio_presets p ON p.preset_id = s.preset_id WHERE s.token_sha256 = $1::text`,
      [tokenSha256],
    );
    const r = rows[0];
    if (!r) return undefined;
    const p: Row = {};
    for (const c of PRESET_COLUMNS.split(', ')) p[c] = r[`p_${c}`];
    return { share: shareOf(r), preset: presetOf(p) };
  }

  /** Copies a shared preset (with its pronunciation lexicon) into `userId`'s presets and counts the fork, in one transaction. */
  async fork(shareId: string, copy: Parameters<StudioRepository['createPreset']>[0]): Promise<StudioPreset> {
    return this.db.transaction(async (tx) => {
      const preset = await this.createPreset(copy, tx);
      if (copy.forkedFromPresetId) {
        await tx.query(
          `INSERT INTO lexicon_entries (lexicon_id, word_key, word, ipa, respelling, case_sensitive, preset_id)
           SELECT 'preset:' || $2::text, word_key, word, ipa, respelling, case_sensitive, $2::text FROM lexicon_entries WHERE lexicon_id = 'preset:' || $1::text`,
          [copy.forkedFromPresetId, preset.presetId],
        );
      }
      await tx.query('UPDATE studio_shares SET fork_count = fork_count + 1 WHERE share_id = $1::text', [shareId]);
      return preset;
    });
  }

  // ---- VIP

  async vipBySlip(slipSha256: string): Promise<VipRequest | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${VIP_COLUMNS} FROM studio_vip_requests WHERE slip_sha256 = $1::text`, [slipSha256]);
    return rows[0] === undefined ? undefined : vipOf(rows[0]);
  }

  async vipByTransRef(transRef: string): Promise<VipRequest | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${VIP_COLUMNS} FROM studio_vip_requests WHERE trans_ref = $1::text`, [transRef]);
    return rows[0] === undefined ? undefined : vipOf(rows[0]);
  }

  async vipRequest(requestId: string): Promise<VipRequest | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${VIP_COLUMNS} FROM studio_vip_requests WHERE request_id = $1::text`, [requestId]);
    return rows[0] === undefined ? undefined : vipOf(rows[0]);
  }

  async listVipRequests(filter: { status?: VipStatus | undefined; userId?: string | undefined }, limit: number): Promise<VipRequest[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${VIP_COLUMNS} FROM studio_vip_requests WHERE ($1::text IS NULL OR status = $1::text) AND ($2::text IS NULL OR user_id = $2::text)
       ORDER BY created_at DESC, request_id LIMIT $3::integer`,
      [filter.status ?? null, filter.userId ?? null, limit],
    );
    return rows.map(vipOf);
  }

  /**
   * Stores a new VIP request and, when it is approved at once, extends the user's VIP; audited, in
   * one transaction. A unique violation (the same slip or transaction raced in) is rethrown.
   */
  /**
   * Records a VIP request with its audits. A user has at most one request waiting: the user's row is
   * locked first, so of two parallel waiting requests the second throws STUDIO_VIP_REQUEST_PENDING.
   */
  async createVipRequest(v: Omit<VipRequest, 'createdAt' | 'vipUntil' | 'decidedAt'> & { vipDays: number | null }, audits: NewAuditEntry[], requestRef: string): Promise<VipRequest> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM studio_users WHERE user_id = $1::text FOR UPDATE', [v.userId]);
      if (v.status === 'pending_review' && (await tx.query<Row>("SELECT 1 FROM studio_vip_requests WHERE user_id = $1::text AND status = 'pending_review' LIMIT 1", [v.userId])).length > 0) {
        throw new TtsError('STUDIO_VIP_REQUEST_PENDING');
      }
      let vipUntil: Date | null = null;
      if (v.status === 'approved' && v.vipDays !== null) vipUntil = await extendVip(tx, v.userId, v.vipDays);
      const rows = await tx.query<Row>(
        `INSERT INTO studio_vip_requests (request_id, user_id, source, plan_id, status, reason, message, expected_amount, slip_sha256, provider, provider_verdict, provider_code, provider_message, trans_ref, slip_amount, vip_until, decided_by, decided_at, request_ref)
         VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::numeric, $9::text, $10::text, $11::text, $12::integer, $13::text, $14::text, $15::numeric, $16::timestamptz, $17::text,
                 CASE WHEN $5::text = 'pending_review' THEN NULL ELSE now() END, $18::text) RETURNING ${VIP_COLUMNS}`,
        [v.requestId, v.userId, v.source, v.planId, v.status, v.reason, v.message, v.expectedAmount, v.slipSha256, v.provider, v.providerVerdict, v.providerCode, v.providerMessage, v.transRef, v.slipAmount, vipUntil, v.decidedBy, requestRef],
      );
      for (const a of audits) await writeStudioAudit(tx, { ...a, detail: { ...(a.detail ?? {}), ...(vipUntil ? { vip_until: vipUntil.toISOString() } : {}) } });
      return vipOf(rows[0]!);
    });
  }

  /**
   * An administrator's decision on a waiting request: moves pending_review -> approved | rejected
   * (granting VIP on approval), audited; undefined when the request is not waiting any more.
   */
  async decideVipRequest(requestId: string, to: 'approved' | 'rejected', actor: string, vipDays: number | null, requestRef: string): Promise<VipRequest | undefined> {
    return this.db.transaction(async (tx) => {
      const current = await tx.query<Row>(`SELECT ${VIP_COLUMNS} FROM studio_vip_requests WHERE request_id = $1::text AND status = 'pending_review' FOR UPDATE`, [requestId]);
      if (!current[0]) return undefined;
      const before = vipOf(current[0]);
      const vipUntil = to === 'approved' && vipDays !== null ? await extendVip(tx, before.userId, vipDays) : null;
      const rows = await tx.query<Row>(
        `UPDATE studio_vip_requests SET status = $2::text, reason = $3::text, vip_until = $4::timestamptz, decided_by = $5::text, decided_at = now() WHERE request_id = $1::text RETURNING ${VIP_COLUMNS}`,
        [requestId, to, to === 'approved' ? 'admin_approved' : 'admin_rejected', vipUntil, actor],
      );
      await writeStudioAudit(tx, { actor, userId: before.userId, action: `vip_request.${to}`, vipRequestId: requestId, fromState: 'pending_review', toState: to, detail: vipUntil ? { vip_until: vipUntil.toISOString() } : null, requestRef });
      return vipOf(rows[0]!);
    });
  }

  async auditOf(filter: { userId?: string; vipRequestId?: string }): Promise<StudioAuditEntry[]> {
    const rows = await this.db.query<Row>(
      `SELECT at, actor, user_id, action, vip_request_id, from_state, to_state, detail FROM studio_audit
       WHERE ($1::text IS NULL OR user_id = $1::text) AND ($2::text IS NULL OR vip_request_id = $2::text) ORDER BY id`,
      [filter.userId ?? null, filter.vipRequestId ?? null],
    );
    return rows.map((r) => ({
      at: r['at'] as Date,
      actor: String(r['actor']),
      userId: String(r['user_id']),
      action: String(r['action']),
      vipRequestId: str(r['vip_request_id']),
      fromState: str(r['from_state']),
      toState: str(r['to_state']),
      detail: (typeof r['detail'] === 'string' ? JSON.parse(r['detail']) : r['detail']) as Record<string, unknown> | null,
    }));
  }

  /** Deletes sessions past their expiry; the number deleted. */
  async deleteExpiredSessions(now: Date): Promise<number> {
    const rows = await this.db.query<Row>('DELETE FROM studio_sessions WHERE expires_at <= $1::timestamptz OR absolute_expires_at <= $1::timestamptz RETURNING session_id', [now]);
    return rows.length;
  }

  /** Ends VIP memberships past their date (and audits each); the number ended. */
  async expireVip(now: Date): Promise<number> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<Row>('UPDATE studio_users SET vip_until = NULL, updated_at = now() WHERE vip_until IS NOT NULL AND vip_until <= $1::timestamptz RETURNING user_id', [now]);
      for (const r of rows) await writeStudioAudit(tx, { actor: 'system', userId: String(r['user_id']), action: 'vip.expired', vipRequestId: null, fromState: 'vip', toState: 'standard', detail: null });
      return rows.length;
    });
  }
}

/** Extends a user's VIP by `days` from the later of now and its current end; the new end. */
async function extendVip(tx: Queryable, userId: string, days: number): Promise<Date> {
  const rows = await tx.query<Row>(
    `UPDATE studio_users SET vip_until = GREATEST(COALESCE(vip_until, now()), now()) + make_interval(days => $2::integer), updated_at = now() WHERE user_id = $1::text RETURNING vip_until`,
    [userId, days],
  );
  return rows[0]!['vip_until'] as Date;
}
