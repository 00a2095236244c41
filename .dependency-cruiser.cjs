// The house's dependency arrows as a lint check (`pnpm lint:deps`, part of `pnpm lint`), so a leak fails CI.
// docs/architecture.md §1 (dependency rules), issue 13 item 1. The boundary test lives in scripts/boundaries.test.ts.

/** Frameworks, databases and network stacks that protocol logic (core) must not touch. */
const FRAMEWORK_DB_NETWORK =
  '(^|node_modules/)(fastify|@fastify|fastify-plugin|ioredis|redis|pg|kysely|piscina|undici|viem|prom-client|env-schema|close-with-grace|pino)(/|$)';
/** The same, for the CLI and the clients (which may use an HTTP/RPC client such as viem). */
const SERVER_FRAMEWORK_DB =
  '(^|node_modules/)(fastify|@fastify|fastify-plugin|ioredis|redis|pg|kysely|piscina)(/|$)';
/** Test code: test files and the test-support modules they share. */
const TEST_CODE = '(\\.test\\.ts|/test-support\\.ts|/test-helpers\\.ts|/testing\\.ts|/testing/[^/]+\\.ts)$';
const NODE_NETWORK = '^(node:)?(http|https|http2|net|tls|dgram|dns|child_process|cluster|sqlite)$';

module.exports = {
  forbidden: [
    {
      name: 'not-to-unresolvable',
      comment: 'an import that does not resolve is a missing dependency in package.json (or a typo).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'core-is-pure',
      comment: 'core imports no framework, no database, no network: everything comes in as arguments.',
      severity: 'error',
      from: { path: '^packages/core/src/' },
      to: {
        path: [
          FRAMEWORK_DB_NETWORK,
          NODE_NETWORK,
          '^packages/(service-kit|store|cli|clients)/',
          '^services/',
          '^@proto/(?!core|schemas|testing)',
        ],
      },
    },
    {
      name: 'kit-and-store-never-import-a-service',
      comment:
        'service-kit and store may import core (and the framework-free clients), never a service or the CLI.',
      severity: 'error',
      from: { path: '^packages/(service-kit|store)/src/' },
      to: { path: ['^services/', '^packages/cli/'] },
    },
    {
      name: 'clients-import-core-only',
      comment:
        'the framework-free clients (used by the CLI) import core only; their tests may add the shared test kit.',
      severity: 'error',
      from: { path: '^packages/clients/src/' },
      to: {
        path: ['^services/', '^packages/(service-kit|store|cli)/', SERVER_FRAMEWORK_DB],
      },
    },
    {
      name: 'clients-use-the-test-kit-in-tests-only',
      comment:
        'a clients test meets its hostile upstream through @proto/testing (startHostileFront); the clients never do.',
      severity: 'error',
      from: { path: '^packages/clients/src/', pathNot: '\\.test\\.ts$' },
      to: { path: ['^packages/testing/', '^@proto/testing(/|$)'] },
    },
    {
      name: 'services-never-import-each-other',
      comment:
        'services talk over HTTP with URLs from configuration, never by import; an end-to-end test may start another service in-process by its package name.',
      severity: 'error',
      from: { path: '^services/([^/]+)/', pathNot: TEST_CODE },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'services-never-import-the-cli-outside-tests',
      comment: 'a service may drive the CLI from an end-to-end test, never from its code.',
      severity: 'error',
      from: { path: '^services/', pathNot: '\\.test\\.ts$' },
      to: { path: '^packages/cli/' },
    },
    {
      name: 'cli-imports-core-and-clients-only',
      comment:
        'the CLI imports core (and HTTP clients), never a service, the service kit, the store or a framework.',
      severity: 'error',
      from: { path: '^packages/cli/src/', pathNot: TEST_CODE },
      to: {
        path: [
          '^services/',
          '^packages/(service-kit|store|testing)/',
          '^@proto/(service-kit|store|testing|verification|anchor|revocation|transparency-log)(/|$)',
          SERVER_FRAMEWORK_DB,
        ],
      },
    },
    {
      name: 'no-reaching-into-another-package-by-path',
      comment:
        'another workspace package is imported by its name (@proto/...), never by a relative path into its src.',
      severity: 'error',
      from: { path: '^(packages|services|bench|scripts)/([^/]+)/' },
      to: {
        dependencyTypes: ['local'],
        path: '^(packages|services)/',
        pathNot: '^$1/$2/',
      },
    },
    {
      name: 'bench-uses-public-exports',
      comment: 'benchmarks use the packages public exports (or HTTP), never their sources by path.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { dependencyTypes: ['local'], path: '^(packages|services)/' },
    },
    {
      name: 'testing-imports-no-workspace-package',
      comment: 'core test code may use @proto/testing, which imports no workspace package (no cycle back).',
      severity: 'error',
      from: { path: '^packages/testing/src/' },
      to: { path: ['^packages/', '^services/', '^@proto/'], pathNot: '^packages/testing/' },
    },
    {
      name: 'production-code-never-imports-test-support',
      comment: '@proto/testing is for tests only.',
      severity: 'error',
      from: {
        path: '^(packages|services)/',
        pathNot: [TEST_CODE, '^packages/testing/'],
      },
      to: { path: '^packages/testing/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)node_modules/', '\\.d\\.ts$'] },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    preserveSymlinks: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
  },
};
