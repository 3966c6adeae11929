// Lint for the mistakes that hurt services: floating promises, type-only imports, any at boundaries,
// and the package boundaries: no import cycles, no relative path into another package, no deep
// import of a package (only the entry points its `exports` map names), no test support in products.
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Entry points of our packages that product code must not import. */
const TEST_ONLY_ENTRIES = ['@tts/*/testing', '@tts/fixtures'];

export default tseslint.config(
  { ignores: ['node_modules/**', '**/dist/**', 'proto/gen/**', 'facade/src/generated/**', 'web/src/generated/**', 'data/**', 'bench/results/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/external-module-folders': ['node_modules', 'node_modules/@types'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: 'tsconfig.json', conditionNames: ['@tts/source', 'types', 'import', 'node', 'default'] }),
      ],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/ban-ts-comment': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-relative-packages': 'error',
      'import-x/no-unresolved': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@tts/*/src/*', '@tts/*/dist/*', '@tts/*/gen/*', '**/gen/tts/*'], message: 'Import another package through an entry point of its package.json `exports`.' },
          ],
        },
      ],
    },
  },
  {
    // Product code: no test support (it is not in dist/).
    files: ['services/*/src/**/*.ts', 'facade/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/testing.ts', '**/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@tts/*/src/*', '@tts/*/dist/*', '@tts/*/gen/*', '**/gen/tts/*'], message: 'Import another package through an entry point of its package.json `exports`.' },
            { group: TEST_ONLY_ENTRIES, message: 'Test support is for tests and benches only; it is not part of dist/.' },
          ],
        },
      ],
    },
  },
  {
    // The facade's rooms: only a room's handlers/ read requests and write answers (with presenters/);
    // the rest of a room is domain code and imports nothing from Express.
    files: ['facade/src/{speech,jobs,references,identity,studio,compliance,operations,cluster}/**/*.ts'],
    ignores: ['**/handlers/**', '**/*.test.ts', '**/testing.ts', '**/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'express', message: 'Domain code does not read requests or write answers: do that in the room\'s handlers/ or in presenters/.' }],
          patterns: [
            { group: ['@tts/*/src/*', '@tts/*/dist/*', '@tts/*/gen/*', '**/gen/tts/*'], message: 'Import another package through an entry point of its package.json `exports`.' },
            { group: TEST_ONLY_ENTRIES, message: 'Test support is for tests and benches only; it is not part of dist/.' },
          ],
        },
      ],
    },
  },
);
