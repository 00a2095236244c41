// Test support shared by every package's tests and the benches: temporary directories, an app on an ephemeral
// port, a hostile local front standing in for an upstream (and its hostile answers), a request sent as is, a free
// port for a child, polling until something happened, an RFC 9162 reference Merkle tree, an independent canonical
// JSON, running a program as a user does and booting a service's main.ts as a child. Issue 13 item 5; imports no workspace package.
export { basicAuthorization, startBasicAuthFront } from './basic-auth-front.ts';
export { type BootRun, bootEnv, bootMain } from './boot-main.ts';
export { freePort } from './free-port.ts';
export {
  answerJson,
  type DripOptions,
  dripForever,
  HALF_A_GIGABYTE,
  JSON_TYPE,
  type LengthLieOptions,
  lieAboutLength,
  redirectTo,
} from './hostile-answers.ts';
export {
  type HostileBody,
  hostileBodies,
  hostileMismatches,
  type Mismatch,
  type Refusal,
  refusalOf,
} from './hostile-bodies.ts';
export {
  type FrontHandler,
  type FrontRequest,
  type FrontRoutes,
  forwardTo,
  type HostileFront,
  startHostileFront,
} from './hostile-front.ts';
export {
  ATTACKER_HOST_MARK,
  ATTACKER_ORIGIN_HEADERS,
  documentedGetPaths,
  type FramedBody,
  type FramingAnswer,
  framedPost,
  framingFaults,
  type HostLeak,
  hostLeaks,
  MALFORMED_HEADS,
  postWithAttackerOrigin,
  type SlowClientPace,
  type SlowClients,
  sendFraming,
  slowClients,
  smugglingFramings,
} from './http-edges.ts';
export { type HugeAnswerTarget, writeHugeAnswer } from './huge-answer.ts';
export { replacementCharAsFF } from './invalid-utf8.ts';
export { jcs, jcsBytes, jcsSha256 } from './jcs.ts';
export { type Listenable, type ListeningApp, listenOnPort0 } from './listen.ts';
export { LOADED_MODULES_RECORDER } from './loaded-modules.ts';
export {
  referenceConsistency,
  referenceLeafHash,
  referenceLeafHashes,
  referencePath,
  referenceRangeRoot,
  referenceRoot,
} from './merkle-reference.ts';
export { type RawConnection, rawConnection } from './raw-connection.ts';
export { type AsIsAnswer, type AsIsRequest, requestAsIs } from './request-as-is.ts';
export { type ProcessRun, runProcess, runProcessSync } from './run-process.ts';
export { type TempDir, tempDir, tempDirSync } from './temp-dir.ts';
export { type Probe, waitFor } from './wait-for.ts';
