import { fileURLToPath } from 'node:url';

/**
 * A preload (`node --import`) that writes the URL of every module the process loaded, one a line, to
 * LOADED_MODULES_FILE when it exits: how a test sees what a service loads before its first request (P80).
 */
export const LOADED_MODULES_RECORDER = fileURLToPath(new URL('./record-loaded-modules.ts', import.meta.url));
