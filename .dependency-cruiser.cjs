// The import rules of docs/architecture.md, checked by `npm run lint:deps` (and so by CI).
// Products are the folders under src/ other than platform; test files are held to the same rules as
// the code they test, except that they may use tests/support.
const PRODUCTS = '(iam|cdn|cdn-analytics|cloud|dns|waap|security|edge|control|console|catalogue-engine)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-product',
      comment: 'src/platform is product-agnostic: errors, auth, db, tasks... know no product',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: [`^src/${PRODUCTS}/`, '^src/(app|server|cli)\\.ts$'] },
    },
    {
      name: 'products-meet-at-their-front-doors',
      comment: "a product uses another only through that product's index.ts",
      severity: 'error',
      from: { path: `^src/${PRODUCTS}/`, pathNot: '\\.test\\.ts$' },
      to: {
        path: `^src/${PRODUCTS}/`,
        pathNot: [`^src/${PRODUCTS}/index\\.ts$`, '^src/$1/'],
      },
    },
    {
      name: 'waap-event-log-is-private',
      comment: 'the WAAP event log is reached through log/index.ts only',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/waap/request-events/log/' },
      to: { path: '^src/waap/request-events/log/', pathNot: '^src/waap/request-events/log/index\\.ts$' },
    },
    {
      name: 'migrations-stay-frozen',
      comment: 'a migration must not change when the code does: it may use only the database helpers',
      severity: 'error',
      from: { path: '^migrations/' },
      to: { path: '^src/', pathNot: '^src/platform/db/' },
    },
    {
      name: 'no-test-code-in-src',
      comment: 'test-only helpers live under tests/, not among the sources that ship',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: ['^tests/', '(^|/)(test-helpers|test-support|oracle)\\.ts$'] },
    },
    {
      name: 'no-cycles',
      comment: 'an import cycle is wiring hidden in module load order; pass the dependency in instead',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|console/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
