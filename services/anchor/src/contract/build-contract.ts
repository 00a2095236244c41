// Script: recompiles contracts/ProtoAnchor.sol and rewrites contracts/ProtoAnchor.generated.json.
// Run `node services/anchor/src/contract/build-contract.ts`; a test checks that the committed artifact matches (D19).
import { writeFileSync } from 'node:fs';
import { artifactText, CONTRACT_ARTIFACT_FILE, CONTRACTS_DIR, compileAnchorContract } from './compile.ts';

const artifact = compileAnchorContract();
const path = `${CONTRACTS_DIR}${CONTRACT_ARTIFACT_FILE}`;
writeFileSync(path, artifactText(artifact));
process.stdout.write(
  `wrote ${path} (${artifact.compiler}, ${(artifact.bytecode.length - 2) / 2} bytes of creation code)\n`,
);
