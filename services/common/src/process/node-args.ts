/**
 * How a process of the platform starts another one: from the TypeScript sources (development,
 * tests) or from the compiled `dist/` (production).
 */

/**
 * Export condition under which every `@tts/*` package resolves to its TypeScript sources instead of
 * its compiled `dist/` (set by `npm run dev`, the tests and the benches; never in production).
 */
export const SOURCE_CONDITION = '@tts/source';

/** Node.js options that run TypeScript sources: tsx with {@link SOURCE_CONDITION}. */
export const SOURCE_EXEC_ARGV: readonly string[] = Object.freeze([`--conditions=${SOURCE_CONDITION}`, '--import', 'tsx']);

/**
 * Node.js arguments that run `entryPath`: a `.ts` source through tsx with {@link SOURCE_CONDITION}
 * (so its own imports of other packages resolve to sources too), a compiled `.js` as it is.
 */
export function nodeArgsFor(entryPath: string): string[] {
  return entryPath.endsWith('.ts') ? [...SOURCE_EXEC_ARGV, entryPath] : [entryPath];
}
