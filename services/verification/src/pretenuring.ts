// P476: V8's allocation-site pretenuring off for the process that runs the verification pool. V8 may decide, from
// one collection's counts, that an object literal's allocation site makes long-lived objects and allocate it in
// the old generation from then on. In a pool thread that decision is taken at random during the first seconds of
// load (a collection that falls inside one verification sees every object that task made still alive), and once
// taken it is never undone: that literal then lands in the old generation with every bundle, where it keeps the young
// objects it points to alive until the next mark-compact, so about 45 KB a bundle (the size of an elevated-10
// bundle's audit entries) outlive two scavenges, are promoted, and cost mark-compacts on V8's helper threads and
// 20–30 MB of peak RSS. A verification's objects all die with its task, so no site in a pool thread gains from it.
import { setFlagsFromString } from 'node:v8';

let off = false;

/**
 * Turns pretenuring off, once, before the pool's first thread starts. V8 flags are the process's; this one is read
 * at each collection, so setting it at run time takes effect (docs/performance-history.md, twenty-second session).
 */
export function turnOffAllocationSitePretenuring(): void {
  if (off) return;
  off = true;
  setFlagsFromString('--no-allocation-site-pretenuring');
}
