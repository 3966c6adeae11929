/**
 * Each package owns its migrations (issue 29, item 4): the facade's and the scheduler's lists
 * never share a version, every released migration keeps its version, name and checksum (or names
 * the checksum it was released with, for the two split between the packages), each list creates
 * only its package's tables, and the two lists share one schema and ledger in either order and
 * concurrently. A database migrated by the old single list of @tts/common opens with the new lists
 * applying only what is new, and ends with the same tables and columns as a fresh one.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { migrationChecksum, type Database, type Migration } from '@tts/common/data';
import { databaseBackends, freshSchemaName } from '@tts/common/testing';
import { FACADE_MIGRATIONS } from '@tts/facade';
import { SCHEDULER_MIGRATIONS } from '@tts/scheduler';

/** The ledger the single list of @tts/common wrote (versions 1 to 24) before the split. */
const RELEASED: readonly (readonly [number, string, string])[] = [
  [1, 'append_only_guard', '47f7e19786fb2e7820d0892914cced02253ff495bde71a0fc6df03c25f91b285'],
  [2, 'api_keys', 'b02a656cdcef1a5bb626eeaf877a1369dd7e83affcc8aa958da04db793e2ecd7'],
  [3, 'usage', '66eb605b60818d70adfccf5f6ce29434e64a64fed3a902b8cbd8888eaddc8467'],
  [4, 'job_access_audit', 'f1c105dee0d3ca87656d2efece1d2a05401dfdef91d4426ce00af2efc8a4bc7e'],
  [5, 'consent_audit', '865841b4b3278008709432f45e02e4a2d8901a4841a06d20b3691a73e514d377'],
  [6, 'server_secrets', 'f63a19a234eb4d08fe8c092407323de86a9bb5640da0cd26a9bc5bd8ab7fc68b'],
  [7, 'jobs', 'a3023e93b79b3783d33161b4b007465f6155eb88c60d6e312f3e01a34acd5e3c'],
  [8, 'slo_requests', '9633232442325a5cb661cb648acb3f98847b2ed4cfa261f743e4f5da0d6be132'],
  [11, 'reference_audio', '28a384cc71ad675220a0959a3b8dbca94da4e982e6c9cf1eb5cb5ad6e33b3476'],
  [12, 'compliance', '2c5b27f0f4af48dda0c7115e6a8407f9813f9a9d00eb52586ac855af7e4737e2'],
  [13, 'hub_token', '8ffa2be82019f03627190a63c4ae1ff10953db97928d72d052c299db7d9ef348'],
  [14, 'job_clone', '17411c1564f849cd475c0f4876bb7badf7c0f174dfa7e97756f6b4b474e3e023'],
  [15, 'studio', '8900b8a0948f984cecc2effe02fa5976a8d8de4e37d1d86a6be94f2275c25397'],
  [16, 'studio_jobs', 'eb74ccc751cd405f1046887698f48d99794f424468bea123c957571fb9953d8d'],
  [17, 'api_key_rate', '1112008dca335c83e3c066f4e37d8e1b9209d59d425614471c0f836f858871a2'],
  [18, 'scheduler_leases', 'ad3b5accf2ed19c43cc3219bbfdf0576c95bf3525c37dcd0923a81c3741944c1'],
  [19, 'job_access_attempts', '4c8d19ce3f1e83cde74a49929e44b4241b05436282c8a5da059a2ca37d96fef4'],
  [20, 'job_result_words', 'aa4f7d74efce8b862977460cd6a1f510887fc2aaffbcac51d70c7f98b8d21c08'],
  [21, 'lexicons', '1948a64dc252e26de8ba546922bfa2b01b64f1a14e02b1ce50ec2c0a9d390e02'],
  [22, 'provenance_payload', 'f131ec44a1e3879a1ba268bcaf22951ac74ddc62fa96d1bbbf87bb67f931227a'],
  [23, 'job_usage', '5fee4b9657a6446ec09ccf04f49b89439971404282578bbed075fbbdb0ffe36c'],
  [24, 'studio_username_skeleton', 'bae72800f67a0a2bf1364572a1c013ba4d3615ba0f06402c30a076de4b0f8b25'],
];
/** What the two split migrations also did when released, now the scheduler's 25 and 26. */
const MOVED_OUT: Readonly<Record<number, string>> = { 21: '\nALTER TABLE jobs ADD COLUMN lexicon jsonb;\n', 22: 'ALTER TABLE jobs ADD COLUMN watermark_payload bigint;\n' };

const byVersion = new Map([...FACADE_MIGRATIONS, ...SCHEDULER_MIGRATIONS].map((m) => [m.version, m]));
/** The old single list, rebuilt from the packages' migrations (its checksums are checked below). */
const OLD_LIST: readonly Migration[] = RELEASED.map(([version]) => {
  const now = byVersion.get(version)!;
  return { version, name: now.name, sql: now.sql + (MOVED_OUT[version] ?? '') };
});
const versions = (list: readonly Migration[]): number[] => list.map((m) => m.version);
const FACADE_TABLES = ['abuse_report_audit', 'abuse_reports', 'api_key_credentials', 'api_keys', 'consent_audit', 'hub_token', 'job_access_audit', 'job_usage', 'lexicon_entries', 'reference_audio', 'server_secrets', 'slo_requests', 'studio_audit', 'studio_presets', 'studio_sessions', 'studio_shares', 'studio_users', 'studio_vip_requests', 'terms_acceptances', 'usage_daily', 'usage_events'];
const SCHEDULER_TABLES = ['job_events', 'jobs', 'scheduler_leases'];

async function ledger(db: Database): Promise<{ version: number; name: string; checksum: string }[]> {
  return db.query('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
}

/** Every table and view of the schema but the ledger, with its columns and their types. */
async function shape(db: Database): Promise<Record<string, string[]>> {
  const rows = await db.query<{ table_name: string; column_name: string; data_type: string }>(
    "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1::text AND table_name <> 'schema_migrations' ORDER BY table_name, column_name",
    [db.schema],
  );
  const tables: Record<string, string[]> = {};
  for (const r of rows) (tables[r.table_name] ??= []).push(`${r.column_name} ${r.data_type}`);
  return tables;
}

describe('migrations owned by their packages', () => {
  it('never share a version across packages, and each list is ascending', () => {
    const facade = new Set(versions(FACADE_MIGRATIONS));
    assert.deepEqual(versions(SCHEDULER_MIGRATIONS).filter((v) => facade.has(v)), []);
    for (const list of [FACADE_MIGRATIONS, SCHEDULER_MIGRATIONS]) assert.deepEqual(versions(list), versions(list).toSorted((a, b) => a - b));
  });

  it('keep every released version, name and checksum; only a split migration names its released checksum', () => {
    assert.deepEqual(OLD_LIST.map((m) => [m.version, m.name, migrationChecksum(m)]), RELEASED, 'the old list is rebuilt exactly');
    for (const [version, name, checksum] of RELEASED) {
      const now = byVersion.get(version)!;
      assert.equal(now.name, name, `migration ${version}`);
      if (version in MOVED_OUT) assert.deepEqual(now.formerChecksums, [checksum], `migration ${version} names the checksum it was released with`);
      else assert.deepEqual([migrationChecksum(now), now.formerChecksums], [checksum, undefined], `migration ${version} is unchanged`);
    }
  });
});

for (const backend of databaseBackends([])) {
  describe(`migrations of the facade and the scheduler (${backend.name})`, () => {
    after(() => backend.close());

    it("each list creates only its package's tables; the facade publishes the credentials view the scheduler reads", async (t) => {
      const facade = await backend.open(t);
      const scheduler = await backend.open(t);
      await facade.migrate(FACADE_MIGRATIONS);
      await scheduler.migrate(SCHEDULER_MIGRATIONS);
      assert.deepEqual(Object.keys(await shape(facade)), FACADE_TABLES);
      assert.deepEqual(Object.keys(await shape(scheduler)), SCHEDULER_TABLES);
      assert.deepEqual((await shape(facade))['api_key_credentials'], ['disabled boolean', 'key_id text', 'secret_hash text', 'tier text']);
    });

    for (const order of [[FACADE_MIGRATIONS, SCHEDULER_MIGRATIONS], [SCHEDULER_MIGRATIONS, FACADE_MIGRATIONS]] as const) {
      it(`share one schema and ledger, ${order[0] === FACADE_MIGRATIONS ? 'the facade' : 'the scheduler'} first`, async (t) => {
        const db = await backend.open(t);
        for (const list of order) assert.deepEqual(await db.migrate(list), versions(list));
        assert.deepEqual(Object.keys(await shape(db)), [...FACADE_TABLES, ...SCHEDULER_TABLES].sort());
        assert.deepEqual((await ledger(db)).map((r) => r.version), [...versions(FACADE_MIGRATIONS), ...versions(SCHEDULER_MIGRATIONS)].sort((a, b) => a - b));
        assert.deepEqual([await db.migrate(order[1]), await db.migrate(order[0])], [[], []]);
      });
    }

    it('apply each migration once when the facade and the scheduler start together on one schema', async (t) => {
      const schema = freshSchemaName();
      const dbs = await Promise.all([1, 2, 3, 4].map(() => backend.open(t, schema)));
      const applied = await Promise.all(dbs.map((db, i) => db.migrate(i % 2 === 0 ? FACADE_MIGRATIONS : SCHEDULER_MIGRATIONS)));
      assert.deepEqual(applied.flat().sort((a, b) => a - b), [...byVersion.keys()].sort((a, b) => a - b));
      assert.deepEqual(Object.keys(await shape(dbs[0]!)), [...FACADE_TABLES, ...SCHEDULER_TABLES].sort());
    });

    for (const first of ['facade', 'scheduler'] as const) {
      it(`open a database of the old single list cleanly (${first} first): only the new migrations run, the ledger keeps its rows, the shape is a fresh one's`, async (t) => {
        const old = await backend.open(t);
        assert.deepEqual(await old.migrate(OLD_LIST), versions(OLD_LIST));
        assert.deepEqual((await ledger(old)).map((r) => [r.version, r.name, r.checksum]), RELEASED);
        await old.query("INSERT INTO jobs (job_id, owner_id, owner_kind, tier, priority, state, max_attempts, text, characters, voice, engine, speed, format, sample_rate, language, mode, consent_confirmed, instructions, raw_text, lexicon, watermark_payload) VALUES ('job_old', 'k', 'api_key', 'free', 1, 'queued', 3, 'hi', 2, 'v', 'e', 1, 'wav', 0, 'en', 'tts', false, '', false, '[]', 42)");

        const upgraded = await backend.open(t, old.schema);
        const lists = first === 'facade' ? [FACADE_MIGRATIONS, SCHEDULER_MIGRATIONS] : [SCHEDULER_MIGRATIONS, FACADE_MIGRATIONS];
        const applied = [];
        for (const list of lists) applied.push(...(await upgraded.migrate(list)));
        assert.deepEqual(applied.sort((a, b) => a - b), [25, 26, 27]);
        assert.deepEqual((await ledger(upgraded)).slice(0, RELEASED.length).map((r) => [r.version, r.name, r.checksum]), RELEASED, 'released rows untouched');
        assert.deepEqual([await upgraded.migrate(FACADE_MIGRATIONS), await upgraded.migrate(SCHEDULER_MIGRATIONS)], [[], []]);
        assert.deepEqual(await upgraded.query('SELECT lexicon, watermark_payload FROM jobs'), [{ lexicon: [], watermark_payload: 42 }]);

        const fresh = await backend.open(t);
        for (const list of lists) await fresh.migrate(list);
        assert.deepEqual(await shape(upgraded), await shape(fresh));
      });
    }
  });
}
