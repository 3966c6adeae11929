/**
 * Leases of the running schedulers (`scheduler_leases`). Each scheduler process takes a lease for
 * its SCHEDULER_ID under a fresh incarnation id at start and renews it well before it expires; the
 * jobs it runs carry that incarnation as their `runner`. Another scheduler treats a running job
 * whose runner holds no live lease as abandoned. Expiry is judged by the database's clock only, so
 * schedulers never compare their own clocks.
 */
import type { Database } from '@tts/common/data';

/** Reads and writes `scheduler_leases`. */
export class SchedulerLeaseRepository {
  constructor(private readonly db: Database) {}

  /**
   * Takes the lease of `schedulerId` for `incarnation` for `ttlMs`, replacing whatever an earlier
   * process of the same id held (that process is gone, or misconfigured with a duplicate id).
   */
  async acquire(schedulerId: string, incarnation: string, ttlMs: number): Promise<void> {
    await this.db.query(
      `INSERT INTO scheduler_leases (scheduler_id, incarnation, started_at, expires_at)
       VALUES ($1::text, $2::text, now(), now() + make_interval(secs => $3::double precision))
       ON CONFLICT (scheduler_id) DO UPDATE SET incarnation = EXCLUDED.incarnation, started_at = EXCLUDED.started_at, expires_at = EXCLUDED.expires_at`,
      [schedulerId, incarnation, ttlMs / 1000],
    );
  }

  /**
   * Extends the lease by `ttlMs` from now. False when `incarnation` no longer holds the lease of
   * `schedulerId` (another process took the id over): the caller must stop committing outcomes.
   */
  async renew(schedulerId: string, incarnation: string, ttlMs: number): Promise<boolean> {
    const rows = await this.db.query<{ scheduler_id: string }>(
      `UPDATE scheduler_leases SET expires_at = now() + make_interval(secs => $3::double precision)
       WHERE scheduler_id = $1::text AND incarnation = $2::text RETURNING scheduler_id`,
      [schedulerId, incarnation, ttlMs / 1000],
    );
    return rows.length === 1;
  }

  /** Gives the lease up (clean shutdown), so other schedulers take over its jobs at once. */
  async release(schedulerId: string, incarnation: string): Promise<void> {
    await this.db.query('DELETE FROM scheduler_leases WHERE scheduler_id = $1::text AND incarnation = $2::text', [schedulerId, incarnation]);
  }

  /** The scheduler ids holding a live lease now, with their incarnations. */
  async live(): Promise<{ schedulerId: string; incarnation: string }[]> {
    const rows = await this.db.query<{ scheduler_id: string; incarnation: string }>('SELECT scheduler_id, incarnation FROM scheduler_leases WHERE expires_at > now() ORDER BY scheduler_id');
    return rows.map((r) => ({ schedulerId: r.scheduler_id, incarnation: r.incarnation }));
  }
}
