// The command table of `proto`: one module per command, registered here in help order.
// To add a command (log, receipt, revocation verify…), write commands/<name>.ts and add it below.
import type { Command } from '../command.ts';
import { anchorCommand } from './anchor.ts';
import { attestationCommand } from './attestation.ts';
import { buildCommand } from './build.ts';
import { hashCommand } from './hash.ts';
import { keygenCommand } from './keygen.ts';
import { logCommand } from './log.ts';
import { receiptCommand } from './receipt.ts';
import { recordCommand } from './record.ts';
import { revocationCommand } from './revocation.ts';
import { verifyCommand } from './verify.ts';

const ALL: readonly Command[] = [
  verifyCommand,
  buildCommand,
  hashCommand,
  keygenCommand,
  logCommand,
  revocationCommand,
  attestationCommand,
  receiptCommand,
  anchorCommand,
  recordCommand,
];

export const COMMANDS: ReadonlyMap<string, Command> = new Map(ALL.map((command) => [command.name, command]));
