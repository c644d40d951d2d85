// typescript-eslint's recommended rules over the library's sources, tests and scripts (`npm run lint`, also
// part of `npm test`). Each workspace (packages/sandbox, the tools in bench/) lints itself with its own config.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.temporal-cli/', '.tmp/', 'bench/', 'packages/'] },
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
