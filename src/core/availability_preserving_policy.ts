// When the manager may unload versions that are no longer aspired (TF Serving's
// AvailabilityPreservingPolicy, core/availability_preserving_policy.h).
//
// A version that left the aspired set keeps serving until some aspired version is AVAILABLE:
// while the newer one loads, retries or has failed, the old one answers. Once one aspired
// version serves — or nothing is aspired any more (the model was emptied or removed) — every
// unaspired AVAILABLE version is unloaded. Unlike TF Serving, which takes one action per
// call, the unloads are returned together: they are independent and each waits for its own
// requests to release it.
//
// Pure: the manager passes a snapshot and acts on the answer; tested from one-line scenarios.
import type { ManagerState } from './servable_state.js';

export interface AspiredVersionSnapshot {
  readonly version: number;
  readonly state: ManagerState;
  /** Whether the source still lists this version as one to serve. */
  readonly aspired: boolean;
}

/** The versions to unload now, in the order given. */
export function versionsToUnload(versions: readonly AspiredVersionSnapshot[]): number[] {
  const anyAspired = versions.some((v) => v.aspired);
  const aspiredAvailable = versions.some((v) => v.aspired && v.state === 'AVAILABLE');
  if (anyAspired && !aspiredAvailable) return [];
  return versions.filter((v) => !v.aspired && v.state === 'AVAILABLE').map((v) => v.version);
}
