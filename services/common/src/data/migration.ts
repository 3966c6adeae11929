/**
 * One versioned schema change: SQL applied once, in one transaction, in version order. Each package
 * owns the migrations of its tables (`facade/src/data/migrations/`,
 * `services/scheduler/src/data/migrations/`) and applies its list at start; versions are one
 * numbering across packages, since every package records them in the same ledger
 * (`schema_migrations`) when they share a schema.
 */
export interface Migration {
  /** Increasing integer, unique across packages; the `NNNN` of the file name. */
  readonly version: number;
  /** Short snake_case name; the rest of the file name. */
  readonly name: string;
  /** The statements, run as one script. Never edit a released migration: add a new one. */
  readonly sql: string;
  /**
   * Checksums of earlier texts of this migration that a database may have recorded, accepted as
   * this migration applied. Only for a released migration split between packages: what moved out
   * is a new migration of its new owner, written to change nothing where the old text already ran.
   */
  readonly formerChecksums?: readonly string[];
}
