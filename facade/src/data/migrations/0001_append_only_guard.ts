import type { Migration } from '@tts/common/data';

/** SQLSTATE the append-only trigger raises (restrict_violation) on an update, delete or truncate. */
export const SQLSTATE_APPEND_ONLY = '23001';

/** The trigger function that makes a table append-only (audits, usage events). */
export const migration: Migration = {
  version: 1,
  name: 'append_only_guard',
  sql: `
CREATE FUNCTION reject_append_only_mutation() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'table % is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'restrict_violation';
END
$fn$;
`,
};
