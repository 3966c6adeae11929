/**
 * The lexicons speech requests carry, kept in memory so a request does not query the database
 * for a lexicon that has not changed (`bench serving`: that query was the facade's largest
 * database cost per request). Every change bumps the lexicon's generation in the shared store
 * (`Kv`: Redis across replicas, in process on one machine); a request reads the generation, one
 * store lookup, and reloads only when it moved, so a change still applies to the next request on
 * every replica. Should a bump fail (the store unreachable), entries also expire after `maxAgeMs`.
 */
import type { Kv } from '@tts/common/kv';
import type { Logger } from '@tts/common';
import type { LexiconEntryRecord } from '../data/index.js';

/** Options of {@link LexiconCache}. */
export interface LexiconCacheOptions {
  /** Lexicons kept (least recently used first out). @default 2000 */
  readonly maxLexicons?: number;
  /** Longest an entry is used without a reload, whatever the generation says. @default 60000 */
  readonly maxAgeMs?: number;
  readonly now?: () => number;
  readonly logger?: Pick<Logger, 'warn'>;
}

interface Cached {
  readonly generation: string;
  readonly loadedAt: number;
  readonly entries: LexiconEntryRecord[];
}

/** Generations outlive any cached entry by far; a key that expired reads as generation 0, which reloads. */
const GENERATION_TTL_SEC = 30 * 24 * 3600;

/** Lexicons by id, checked against their generation on every read. */
export class LexiconCache {
  private readonly lexicons = new Map<string, Cached>();
  private readonly maxLexicons: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly kv: Pick<Kv, 'get' | 'incrBy'>,
    private readonly options: LexiconCacheOptions = {},
  ) {
    this.maxLexicons = options.maxLexicons ?? 2000;
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** The entries of `lexiconId`: cached while its generation stands, else `load()`ed and cached. */
  async get(lexiconId: string, load: () => Promise<LexiconEntryRecord[]>): Promise<LexiconEntryRecord[]> {
    // Read before loading: a change committed meanwhile bumps it, so the next read reloads.
    const generation = (await this.kv.get(generationKey(lexiconId))) ?? '0';
    const cached = this.lexicons.get(lexiconId);
    if (cached !== undefined && cached.generation === generation && this.now() - cached.loadedAt < this.maxAgeMs) {
      // Most recently used last: Map keeps insertion order.
      this.lexicons.delete(lexiconId);
      this.lexicons.set(lexiconId, cached);
      return cached.entries;
    }
    const entries = await load();
    this.lexicons.delete(lexiconId);
    this.lexicons.set(lexiconId, { generation, loadedAt: this.now(), entries });
    if (this.lexicons.size > this.maxLexicons) this.lexicons.delete(this.lexicons.keys().next().value!);
    return entries;
  }

  /**
   * Notes that `lexiconId` changed (after the change is committed). Never throws: the change is
   * stored; a replica that missed the bump reloads within `maxAgeMs`.
   */
  async changed(lexiconId: string): Promise<void> {
    this.lexicons.delete(lexiconId);
    try {
      await this.kv.incrBy(generationKey(lexiconId), 1, GENERATION_TTL_SEC);
    } catch (err) {
      this.options.logger?.warn('lexicon generation not bumped: other replicas reload it within the cache age', { lexicon_id: lexiconId, error: err instanceof Error ? err.message : String(err), max_age_ms: this.maxAgeMs });
    }
  }
}

const generationKey = (lexiconId: string): string => `lexicon-generation:${lexiconId}`;
