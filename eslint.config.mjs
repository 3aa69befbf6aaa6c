// Lint for the repository's JavaScript: the viewer and the npm package's
// own modules, tests and tools (cargo xtask test runs `npx eslint`). The
// recommended rules, with the globals of where each file runs.
import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    ignores: ['**/node_modules/**', 'bindings-wasm/pkg/**', 'target/**', 'viewer/assets/**'],
  },
  {
    files: ['**/*.mjs'],
    ...js.configs.recommended,
  },
  {
    files: ['viewer/src/**/*.mjs'],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
  },
  {
    files: ['viewer/test/**/*.mjs', 'bindings-wasm/**/*.mjs', 'eslint.config.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    rules: {
      // An unused argument often documents a callback's shape.
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
    },
  },
];
