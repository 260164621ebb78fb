// ESLint for the web course's JavaScript (build scripts, tests, benchmarks): a few rules that find
// mistakes, none about layout (Prettier's job). TypeScript is checked by `tsc --noEmit` (npm run
// check). No plugin or shared config is imported, so the file runs with a bare `eslint`.
// The quick check (scripts/format-check.sh) runs it on the files listed in scripts/formatted.txt.
export default [
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module' },
    rules: {
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
      'no-var': 'error',
      'prefer-const': ['error', { destructuring: 'all' }],
      eqeqeq: ['error', 'smart'],
      'no-dupe-keys': 'error',
      'no-duplicate-imports': 'error',
      'no-unreachable': 'error',
      'no-self-compare': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
];
