/**
 * Studio accounts and sessions.
 *
 * - A guest session needs nothing; registering (username and/or email + password) from a guest
 *   session turns that guest into the account, keeping its id and so its presets.
 * - Session tokens (`sst_` + 43 random base62 characters, 256 bits) are sent as X-Studio-Token and
 *   stored only as their SHA-256. Sliding expiry with an absolute cap: a registered session lives
 *   7 days after its last use and at most 30 days; a guest session 30 days after its last use and at
 *   most 90 days (a guest has nothing else to come back with). The slide is written at most every
 *   5 minutes. Registering, logging in and changing the password issue a new token.
 * - Every request reads its session from the database (no identity cache): a logout, a revocation,
 *   a password change or a disabled account takes effect on the next request, on every replica.
 * - Logins are throttled on top of the public rate profile, per account and address, per address,
 *   and slowed down per account, never locked (login-throttle.ts). A login for an unknown account
 *   still runs a password hash, so it costs the same work as a wrong password for a real one.
 * - Usernames and emails are unique case-insensitively after NFKC normalization; a username is in
 *   one script and its confusable skeleton is unique too (usernames.ts).
 */
import { randomBytes } from 'node:crypto';
import { TtsError, type Logger } from '@tts/common';
import { DatabaseError } from '@tts/common/data';
import type { Kv } from '@tts/common/kv';
import { writeStudioAudit, type NewAuditEntry, type StudioRepository, type StudioRole, type StudioUser } from '../data/index.js';
import { randomString, sha256Hex } from '../identity/crypto.js';
import { LoginThrottle } from './login-throttle.js';
import { checkNewPassword, type PasswordHasher } from './passwords.js';
import type { PwnedPasswords } from './pwned-passwords.js';
import { isSingleScript, usernameSkeleton } from './usernames.js';

/** Lifetimes of sessions, in seconds. */
export interface SessionPolicy {
  readonly registeredIdleSec: number;
  readonly registeredAbsoluteSec: number;
  readonly guestIdleSec: number;
  readonly guestAbsoluteSec: number;
  /** A session's expiry is slid only when its last recorded use is older than this. */
  readonly touchEverySec: number;
}

const DAY = 86_400;

/** The documented session lifetimes. */
export const SESSION_POLICY: SessionPolicy = {
  registeredIdleSec: 7 * DAY,
  registeredAbsoluteSec: 30 * DAY,
  guestIdleSec: 30 * DAY,
  guestAbsoluteSec: 90 * DAY,
  touchEverySec: 300,
};

/** The caller of a studio operation. */
export interface StudioPrincipal {
  readonly sessionId: string;
  readonly user: StudioUser;
  readonly expiresAt: Date;
  readonly absoluteExpiresAt: Date;
  /** True while the user's VIP membership runs. */
  readonly vip: boolean;
}

/** A session just issued: the token is shown this once. */
export interface IssuedSession {
  readonly token: string;
  readonly sessionId: string;
  readonly expiresAt: Date;
  readonly absoluteExpiresAt: Date;
  readonly user: StudioUser;
}

const USERNAME = /^[\p{L}\p{N}][\p{L}\p{N}._-]{2,31}$/u;
const EMAIL = /^[^\s@"<>()[\]\\,;:]{1,64}@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:]{2,}$/u;

/** The uniqueness key of a username or email: NFKC, lower case. */
export function loginKey(value: string): string {
  return value.normalize('NFKC').toLowerCase().normalize('NFKC');
}

/** True while `user` is VIP at `now`. */
export function isVip(user: StudioUser, now: Date): boolean {
  return user.vipUntil !== null && user.vipUntil.getTime() > now.getTime();
}

/** Options of StudioAccounts. */
export interface StudioAccountsOptions {
  readonly repo: StudioRepository;
  readonly kv: Kv;
  readonly hasher: PasswordHasher;
  /** Breach-corpus check of new passwords (TTS_PWNED_PASSWORDS_URL); undefined: off. */
  readonly breached?: PwnedPasswords | undefined;
  readonly logger: Logger;
  readonly policy?: SessionPolicy;
  readonly now?: () => Date;
}

/** Registration input, as the body carries it. */
export interface Registration {
  readonly username?: string | undefined;
  readonly email?: string | undefined;
  readonly password: string;
}

/** Accounts, sessions and their audit. */
export class StudioAccounts {
  readonly policy: SessionPolicy;
  private readonly repo: StudioRepository;
  private readonly throttle: LoginThrottle;
  readonly hasher: PasswordHasher;
  private readonly breached: PwnedPasswords | undefined;
  private readonly logger: Logger;
  private readonly now: () => Date;

  constructor(options: StudioAccountsOptions) {
    this.repo = options.repo;
    this.throttle = new LoginThrottle(options.kv);
    this.hasher = options.hasher;
    this.breached = options.breached;
    this.logger = options.logger;
    this.policy = options.policy ?? SESSION_POLICY;
    this.now = options.now ?? (() => new Date());
  }

  private async issue(user: StudioUser): Promise<IssuedSession> {
    const token = `sst_${randomString(43)}`;
    const now = this.now();
    const guest = user.kind === 'guest';
    const idle = guest ? this.policy.guestIdleSec : this.policy.registeredIdleSec;
    const absolute = guest ? this.policy.guestAbsoluteSec : this.policy.registeredAbsoluteSec;
    const session = {
      sessionId: `ses_${randomBytes(12).toString('base64url')}`,
      tokenSha256: sha256Hex(token),
      userId: user.userId,
      expiresAt: new Date(now.getTime() + idle * 1000),
      absoluteExpiresAt: new Date(now.getTime() + absolute * 1000),
    };
    await this.repo.createSession(session);
    return { token, sessionId: session.sessionId, expiresAt: session.expiresAt, absoluteExpiresAt: session.absoluteExpiresAt, user };
  }

  /** A new guest account and its session. */
  async guest(requestRef: string): Promise<IssuedSession> {
    const userId = `usr_${randomBytes(12).toString('base64url')}`;
    const user = await this.repo.createUser(
      { userId, kind: 'guest', username: null, usernameKey: null, usernameSkeleton: null, email: null, emailKey: null, passwordHash: null },
      { actor: `studio:${userId}`, userId, action: 'account.guest_created', vipRequestId: null, fromState: null, toState: 'guest', detail: null, requestRef },
    );
    return this.issue(user);
  }

  /**
   * Registers an account. From a guest session (`current`) the guest becomes the account (same id,
   * presets kept) and its guest sessions end; a new session is issued either way.
   */
  async register(input: Registration, current: StudioPrincipal | undefined, requestRef: string): Promise<IssuedSession> {
    if (current && current.user.kind !== 'guest') throw new TtsError('STUDIO_ALREADY_REGISTERED');
    const username = input.username?.normalize('NFKC').trim();
    const email = input.email?.normalize('NFKC').trim();
    if (!username && !email) throw new TtsError('STUDIO_LOGIN_NAME_MISSING', undefined, { loc: ['body', 'username'] });
    if (username !== undefined && username !== '' && !USERNAME.test(username)) throw new TtsError('STUDIO_USERNAME_INVALID', undefined, { loc: ['body', 'username'] });
    if (username !== undefined && username !== '' && !isSingleScript(username)) throw new TtsError('STUDIO_USERNAME_MIXED_SCRIPT', undefined, { loc: ['body', 'username'] });
    if (email !== undefined && email !== '' && (email.length > 254 || !EMAIL.test(email))) throw new TtsError('STUDIO_EMAIL_INVALID', undefined, { loc: ['body', 'email'] });
    const password = await checkNewPassword(input.password, { username: username ?? null, email: email ?? null });
    await this.breached?.check(password, 'password');
    const fields = {
      username: username || null,
      usernameKey: username ? loginKey(username) : null,
      usernameSkeleton: username ? usernameSkeleton(username) : null,
      email: email || null,
      emailKey: email ? loginKey(email) : null,
    };
    if (fields.usernameKey !== null && (await this.repo.userByLogin(fields.usernameKey))) throw new TtsError('STUDIO_USERNAME_TAKEN', undefined, { loc: ['body', 'username'] });
    if (fields.usernameSkeleton !== null && (await this.repo.usernameSkeletonTaken(fields.usernameSkeleton))) throw new TtsError('STUDIO_USERNAME_CONFUSABLE', undefined, { loc: ['body', 'username'] });
    if (fields.emailKey !== null && (await this.repo.userByLogin(fields.emailKey))) throw new TtsError('STUDIO_EMAIL_TAKEN', undefined, { loc: ['body', 'email'] });
    const passwordHash = await this.hasher.hash(password);
    try {
      let user: StudioUser | undefined;
      if (current) {
        user = await this.repo.registerGuest(current.user.userId, { ...fields, passwordHash }, { actor: `studio:${current.user.userId}`, userId: current.user.userId, action: 'account.registered', vipRequestId: null, fromState: 'guest', toState: 'registered', detail: { from_guest: true }, requestRef });
        if (!user) throw new TtsError('STUDIO_ALREADY_REGISTERED');
        await this.repo.deleteSessions(user.userId, null);
      } else {
        const userId = `usr_${randomBytes(12).toString('base64url')}`;
        user = await this.repo.db.transaction((tx) => this.repo.createUser({ userId, kind: 'registered', ...fields, passwordHash }, { actor: `studio:${userId}`, userId, action: 'account.registered', vipRequestId: null, fromState: null, toState: 'registered', detail: { from_guest: false }, requestRef }, tx));
      }
      return await this.issue(user);
    } catch (err) {
      // Two registrations raced for the same name: the loser gets the same answer as a late one.
      if (err instanceof DatabaseError && err.sqlState === '23505') {
        if (err.constraint?.includes('email')) throw new TtsError('STUDIO_EMAIL_TAKEN', undefined, { loc: ['body', 'email'] });
        throw new TtsError(err.constraint?.includes('skeleton') ? 'STUDIO_USERNAME_CONFUSABLE' : 'STUDIO_USERNAME_TAKEN', undefined, { loc: ['body', 'username'] });
      }
      throw err;
    }
  }

  /**
   * Stores the skeleton of every username registered before skeletons were (migration 24). Two
   * older names with one skeleton keep working; the later one is left without and logged.
   */
  async backfillUsernameSkeletons(): Promise<void> {
    for (const { userId, username } of await this.repo.usernamesWithoutSkeleton(100_000)) {
      if (!(await this.repo.setUsernameSkeleton(userId, usernameSkeleton(username)))) this.logger.warn('studio username confusable with an older one', { user_id: userId });
    }
  }

  /**
   * Logs in with a username or email and a password. The attempt is counted before the password is
   * checked (see login-throttle.ts); an unknown account runs the same password hash as a known one,
   * and a disabled account gives the same answer whether the password is right or not.
   */
  async login(login: string, password: string, address: string, requestRef: string): Promise<IssuedSession> {
    const key = loginKey(login.trim());
    const attempt = await this.throttle.attempt(key, address);
    const user = key === '' ? undefined : await this.repo.userByLogin(key);
    const ok = user?.passwordHash ? await this.hasher.verify(password, user.passwordHash) : await this.hasher.verifyUnknown(password);
    // A disabled account is a failure like a wrong password: no answer tells the password was right.
    if (!ok || !user || user.disabled) throw new TtsError('STUDIO_LOGIN_FAILED');
    await attempt.succeeded();
    await this.repo.noteLogin(user.userId);
    const issued = await this.issue(user);
    this.logger.info('studio login', { user_id: user.userId, request_id: requestRef });
    return issued;
  }

  /** The principal of a session token; throws STUDIO_SESSION_MISSING / _INVALID / STUDIO_ACCOUNT_DISABLED. */
  async authenticate(token: string | undefined): Promise<StudioPrincipal> {
    if (token === undefined || token === '') throw new TtsError('STUDIO_SESSION_MISSING');
    if (token.length > 128 || !token.startsWith('sst_')) throw new TtsError('STUDIO_SESSION_INVALID');
    const now = this.now();
    const s = await this.repo.session(sha256Hex(token), now);
    if (!s || s.user.kind === 'deleted') throw new TtsError('STUDIO_SESSION_INVALID');
    if (s.user.disabled) throw new TtsError('STUDIO_ACCOUNT_DISABLED');
    let expiresAt = s.expiresAt;
    if (now.getTime() - s.lastSeenAt.getTime() >= this.policy.touchEverySec * 1000) {
      const idle = s.user.kind === 'guest' ? this.policy.guestIdleSec : this.policy.registeredIdleSec;
      const slid = new Date(Math.min(now.getTime() + idle * 1000, s.absoluteExpiresAt.getTime()));
      await this.repo.touchSession(s.sessionId, now, slid);
      expiresAt = slid;
    }
    return { sessionId: s.sessionId, user: s.user, expiresAt, absoluteExpiresAt: s.absoluteExpiresAt, vip: isVip(s.user, now) };
  }

  /** True while the user exists and is not deleted (a deleted account's web jobs are revoked by it). */
  async isLiveUser(userId: string): Promise<boolean> {
    const user = await this.repo.user(userId);
    return user !== undefined && user.kind !== 'deleted';
  }

  /** Ends the caller's session. */
  async logout(p: StudioPrincipal): Promise<void> {
    await this.repo.deleteSession(p.sessionId);
  }

  private async checkPassword(p: StudioPrincipal, password: string | undefined): Promise<void> {
    if (p.user.kind !== 'registered' || !p.user.passwordHash) throw new TtsError('STUDIO_REGISTRATION_REQUIRED');
    if (password === undefined || !(await this.hasher.verify(password, p.user.passwordHash))) throw new TtsError('STUDIO_PASSWORD_INCORRECT', undefined, { loc: ['body', 'current_password'] });
  }

  /** Changes the password; every other session of the user ends. Returns how many ended. */
  async changePassword(p: StudioPrincipal, current: string, next: string, requestRef: string): Promise<number> {
    await this.checkPassword(p, current);
    const normalized = await checkNewPassword(next, { username: p.user.username, email: p.user.email }, 'new_password');
    await this.breached?.check(normalized, 'new_password');
    const hash = await this.hasher.hash(normalized);
    return this.repo.changePassword(p.user.userId, hash, p.sessionId, { actor: `studio:${p.user.userId}`, userId: p.user.userId, action: 'account.password_changed', vipRequestId: null, fromState: null, toState: null, detail: null, requestRef });
  }

  /**
   * Deletes the caller's account: presets, shares and sessions removed, name and email erased; VIP
   * requests and audits are kept under the anonymous id. A registered account confirms with its password.
   */
  async deleteAccount(p: StudioPrincipal, password: string | undefined, requestRef: string): Promise<{ presets: number; shares: number; sessions: number }> {
    if (p.user.kind === 'registered') await this.checkPassword(p, password);
    const audit: NewAuditEntry = { actor: `studio:${p.user.userId}`, userId: p.user.userId, action: 'account.deleted', vipRequestId: null, fromState: p.user.kind, toState: 'deleted', detail: null, requestRef };
    return this.repo.deleteAccount(p.user.userId, audit);
  }

  /**
   * An administrator's change to a user: role, VIP end (null ends it), disabled (which also ends
   * every session). Each changed field is audited. A studio administrator cannot demote or disable
   * themselves (409 STUDIO_SELF_LOCKOUT).
   */
  async updateUser(actor: string, actingUserId: string | null, userId: string, patch: { role?: StudioRole | undefined; vipUntil?: Date | null | undefined; disabled?: boolean | undefined }, requestRef: string): Promise<StudioUser> {
    if (actingUserId === userId && (patch.role === 'user' || patch.disabled === true)) throw new TtsError('STUDIO_SELF_LOCKOUT');
    const updated = await this.repo.updateUser(userId, patch, (before) => {
      const audits: NewAuditEntry[] = [];
      const entry = (action: string, from: string | null, to: string | null): NewAuditEntry => ({ actor, userId, action, vipRequestId: null, fromState: from, toState: to, detail: null, requestRef });
      if (patch.role !== undefined && patch.role !== before.role) audits.push(entry('account.role_changed', before.role, patch.role));
      if (patch.disabled !== undefined && patch.disabled !== before.disabled) audits.push(entry(patch.disabled ? 'account.disabled' : 'account.enabled', before.disabled ? 'disabled' : 'enabled', patch.disabled ? 'disabled' : 'enabled'));
      if (patch.vipUntil !== undefined && (patch.vipUntil?.getTime() ?? null) !== (before.vipUntil?.getTime() ?? null)) {
        audits.push(entry('vip.set_by_admin', before.vipUntil?.toISOString() ?? null, patch.vipUntil?.toISOString() ?? null));
      }
      return audits;
    });
    if (!updated) throw new TtsError('STUDIO_USER_NOT_FOUND', undefined, { loc: ['path', 'user_id'] });
    return updated;
  }

  /** Users, newest first (administrators). */
  listUsers(limit: number): Promise<StudioUser[]> {
    return this.repo.listUsers(limit);
  }

  /** Ends every session of a user (administrators); the number ended. */
  async revokeSessions(userId: string, actor: string, requestRef: string): Promise<number> {
    const user = await this.repo.user(userId);
    if (!user || user.kind === 'deleted') throw new TtsError('STUDIO_USER_NOT_FOUND', undefined, { loc: ['path', 'user_id'] });
    return this.repo.db.transaction(async (tx) => {
      const n = await this.repo.deleteSessions(userId, null, tx);
      await writeStudioAudit(tx, { actor, userId, action: 'account.sessions_revoked', vipRequestId: null, fromState: null, toState: null, detail: { sessions: n }, requestRef });
      return n;
    });
  }
}

/** The JSON of a user: the user's own view, or an administrator's (adds role details and timestamps). */
export function studioUserJson(u: StudioUser, now: Date, admin: boolean): Record<string, unknown> {
  const base: Record<string, unknown> = {
    user_id: u.userId,
    kind: u.kind,
    username: u.username,
    email: u.email,
    role: u.role,
    vip: isVip(u, now),
    vip_until: u.vipUntil?.toISOString() ?? null,
    created_at: u.createdAt.toISOString(),
  };
  if (!admin) return base;
  return { ...base, disabled: u.disabled, updated_at: u.updatedAt.toISOString(), last_login_at: u.lastLoginAt?.toISOString() ?? null };
}

/** The JSON of a session just issued (the token is shown this once). */
export function issuedSessionJson(s: IssuedSession, now: Date): Record<string, unknown> {
  return {
    token: s.token,
    token_header: 'X-Studio-Token',
    session_id: s.sessionId,
    expires_at: s.expiresAt.toISOString(),
    absolute_expires_at: s.absoluteExpiresAt.toISOString(),
    user: studioUserJson(s.user, now, false),
  };
}
