// typescript-eslint's recommended rules over the library's sources, tests, benchmarks and scripts (`npm run
// lint`, also part of `npm test`). Each workspace in packages/ lints itself with its own config.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.temporal-cli/', '.tmp/', 'bench/results/', 'packages/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
);
