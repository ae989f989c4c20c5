/**
 * The layers and module boundaries of src/ (docs/architecture.md), checked by `npm test`
 * (`npm run check:deps`): lib → core → db → http → modules → the composition root (app.ts,
 * server.ts, cli.ts). Each module is reached only through its index.ts, and nothing cycles.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'An import cycle, even of types only: each file must be readable after the ones it uses.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'module-internals',
      comment: 'A module uses another only through its index.ts, its one public face.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index[.]ts$'] },
    },
    {
      name: 'root-to-module-internals',
      comment: 'The composition root (app.ts, server.ts, cli.ts) uses modules through their index.ts too.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/modules/' },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index[.]ts$' },
    },
    {
      name: 'layers-below-modules',
      comment: 'lib, core, db and http serve every module and know none.',
      severity: 'error',
      from: { path: '^src/(lib|core|db|http)/' },
      to: { path: '^src/(modules/|app[.]ts|server[.]ts|cli[.]ts|cli/)' },
    },
    {
      name: 'core-is-small',
      comment: 'core (errors, locks, access, site context, envelopes, pagination, the App type) uses only lib.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/(core|lib)/' },
    },
    {
      name: 'lib-is-pure',
      comment: 'lib holds pure helpers (time, money, text, random): it uses nothing else of src.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'db-below-http',
      comment: 'The database layer knows nothing of HTTP.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/http/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
