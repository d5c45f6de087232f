import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers' boundaries (docs/architecture.md, "Who may call whom"). Tests and benches may reach inside.
const throughFaces = {
  regex: '(^|/)modules/[^/]+/(?!index\\.ts$)[^/]+',
  message: "Use the module's face (src/modules/<module>/index.ts); its other files are private.",
};
const otherModuleInternals = {
  regex: '^\\.\\./(?!\\.\\.)[^/]+/(?!index\\.ts$)[^/]+$',
  message: "Use the other module's face (../<module>/index.ts); its other files are private.",
};
const noHttp = { regex: '(^|/)http/', message: 'core, db and filters know nothing of HTTP.' };
const noModules = { regex: '(^|/)modules/', message: 'core, db and filters sit below the modules and import none.' };

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'console/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // Scripts Hearth serves to browsers (the website tracker, /t.js): plain scripts, no modules.
    files: ['src/**/*.browser.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        location: 'readonly',
        history: 'readonly',
        localStorage: 'readonly',
        fetch: 'readonly',
        crypto: 'readonly',
      },
    },
  },
  {
    // The web console (console/src): Preact in the browser, bundled by scripts/build-console.mjs.
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: {
      globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', location: 'readonly', history: 'readonly', fetch: 'readonly' },
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/db/**/*.ts', 'src/filters/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noHttp, noModules] }] },
  },
  {
    files: ['src/modules/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [otherModuleInternals] }] },
  },
  {
    files: ['src/*.ts', 'src/cli/**/*.ts', 'src/jobs/**/*.ts', 'src/http/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [throughFaces] }] },
  },
);
