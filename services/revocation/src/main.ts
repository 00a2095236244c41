// Entry point of the revocation service (`pnpm start:revocation`): Node's compile cache first, then the service (serve.ts),
// loaded only now so that the cache covers its modules too (P119, P122).
import { startCompileCache } from '@proto/service-kit/compile-cache';

startCompileCache();
await import('./serve.ts');
