// typescript-eslint's strict type-checked rules, tuned where they fight the project's style.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      '.bench-build/',
      'site/',
      'reports/',
      '.stryker-tmp/',
      'fixtures/',
      'node_modules/',
      'eslint.config.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['stryker.config.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // Numbers and bigints in messages are ordinary; objects still are not.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // With noUncheckedIndexedAccess, `arr[i]!` inside a bounds-checked loop is the idiom (hot paths
      // pay for no extra check); tests index fixtures they just checked.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // vitest's asymmetric matchers (expect.any, expect.stringContaining) are typed any.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // `(v, sink) => sink.writeByte(v)` is the encoders' idiom for a writer.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Go semantics code compares against constants on purpose (`scale >= NANO`).
      '@typescript-eslint/no-unnecessary-condition': ['error', { allowConstantLoopConditions: true }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // vitest's asymmetric matchers (expect.any, expect.stringContaining) are typed any.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
);
