// The floor's work as a piscina task (bench/floor-verifier-server.ts, FLOOR_VERIFIER=piscina, P136): the same
// work as floor-verifier-thread.ts's, only reached through the pool library the service uses.
import { type FloorVerdict, floorVerify } from './floor-verifier-work.ts';

export default function floorTask({ body }: { body: Uint8Array }): FloorVerdict {
  return floorVerify(body);
}
