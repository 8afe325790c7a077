// The policy of each batching mode (src/config/batching_modes.ts names the modes). Adding a
// policy: its file (batch_policy.ts says what it decides; fixed_timeout_policy.ts is the
// smallest to copy), its name and one-line help in batching_modes.ts, and its line here.
import type { BatchingMode } from '../config/batching_modes.js';
import type { PolicyFactory } from './batch_policy.js';
import { AdaptiveBatchPolicy } from './adaptive_batch_policy.js';
import { FixedTimeoutPolicy } from './fixed_timeout_policy.js';

export type PolicyTable = Readonly<Record<string, PolicyFactory>>;

export const BATCH_POLICIES: { readonly [M in BatchingMode]: PolicyFactory } = {
  fixed: (context) => new FixedTimeoutPolicy(context),
  adaptive: (context) => new AdaptiveBatchPolicy(context),
};
