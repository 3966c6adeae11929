/** One versioned schema change: SQL applied once, in one transaction, in version order. */
export interface Migration {
  /** Increasing integer; the `NNNN` of the file name. */
  readonly version: number;
  /** Short snake_case name; the rest of the file name. */
  readonly name: string;
  /** The statements, run as one script. Never edit a released migration: add a new one. */
  readonly sql: string;
}
