// Entry point of the verification service (`pnpm start:verification`): Node's compile cache first, then the
// service (serve.ts), loaded only now so that the cache covers its modules too; its threads inherit it (P119).
import { startCompileCache } from '@proto/service-kit/compile-cache';

startCompileCache();
await import('./serve.ts');
