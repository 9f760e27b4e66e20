// Strict async rules (immich's habit): every promise is awaited or handled, and every switch over a
// union is exhaustive, so a new error code or status cannot be silently ignored.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The package names of every workspace under these folders (`@lode/commit`, …), read from their package.json. */
function packagesUnder(...folders) {
  return folders.flatMap((folder) =>
    readdirSync(path.join(import.meta.dirname, folder), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => JSON.parse(readFileSync(path.join(import.meta.dirname, folder, entry.name, 'package.json'), 'utf8')).name),
  );
}

/** An import of these packages, by name or by any subpath of theirs (`@lode/system/names`). */
const packagePatterns = (names, message) => ({ group: names.flatMap((name) => [name, `${name}/*`]), message });
/** A relative import that climbs out of its package into one of these top-level folders. */
const climbingInto = (folders, message) => ({ regex: `^(\\.\\./)+(${folders.join('|')})(/|$)`, message });
/** What a client's sources may not import: they run on users' machines, without the servers' packages. */
const clientSourcePatterns = [
  packagePatterns(packagesUnder('libs', 'services'), "A client's sources depend on no server package: the SDK carries what they need."),
  climbingInto(['libs', 'services'], "A client's sources depend on no server package: the SDK carries what they need."),
];

/**
 * The layering of docs/architecture.md, as lint rules rather than a reviewer's memory: libs know
 * nothing of services or clients; a client's sources depend on no server package; a repository is
 * SQL alone and never imports another (row types they share live in a file of their own); a handler
 * calls the domain, never a repository. Each block covers files no other covers, so none replaces
 * another's restrictions.
 */
const layering = [
  {
    files: ['libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            packagePatterns(packagesUnder('services', 'clients'), 'A library must not depend on a service or a client.'),
            climbingInto(['services', 'clients'], 'A library must not depend on a service or a client.'),
          ],
        },
      ],
    },
  },
  {
    files: ['clients/*/src/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: clientSourcePatterns }] },
  },
  {
    files: ['clients/{sdk,cli}/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...clientSourcePatterns,
            {
              group: ['node:http', 'node:https'],
              allowTypeImports: true,
              message:
                "Take them from the SDK's node-http.ts (process.getBuiltinModule): an ESM import of node:http loads Node's fetch with it, on every run of the CLI.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['services/*/src/repo/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)[^/]+-repo(\\.ts)?$',
              message: 'Repositories never import each other: move what they share into a file of its own (repo/<name>-rows.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['services/*/src/handlers/**/*.ts', 'services/*/src/serve.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '(^|/)(repo/|[^/]+-repo(\\.ts)?$)', message: 'A handler calls the domain, never a repository.' }],
        },
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.lode/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Tests read JSON responses as a client would, untyped; the async rules still apply to them.
    files: ['**/test/**/*.ts', '**/*.test.ts', 'libs/testkit/**/*.ts', 'services/system/testing/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  ...layering,
);
