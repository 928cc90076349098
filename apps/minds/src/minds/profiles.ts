/**
 * Plans, capacity profiles and their capacities. The interface's create rules
 * ("Plan and profile rules for create") and the capacities of its examples:
 * capacity is owned by the server and never taken from the caller.
 */
import { ServiceError } from '@gateway-minds/service-kit';
import { DEFAULT_PLAN, type Plan, type ProfileId } from '../spec.js';
import type { MindCapacity } from './store.js';

/** What each selectable profile runs with (spec examples MindCreatedFree / MindCreatedPro; D2 doubles D1). */
export const PROFILE_CAPACITY: Record<ProfileId, Omit<MindCapacity, 'profile_id'>> = {
  F1: { cpus: 1, memory_mb: 1024, volume_size_gb: 10 },
  D1: { cpus: 2, memory_mb: 4096, volume_size_gb: 20 },
  D2: { cpus: 4, memory_mb: 8192, volume_size_gb: 40 },
};

/** free: F1 only (and by default); pro: F1, D1, D2, D1 by default. */
export const PLAN_PROFILES: Record<Plan, { allowed: readonly ProfileId[]; default: ProfileId }> = {
  free: { allowed: ['F1'], default: 'F1' },
  pro: { allowed: ['F1', 'D1', 'D2'], default: 'D1' },
};

/**
 * The plan and capacity of a create request. A profile the plan does not admit never gets here:
 * the request schema refuses it (CreateMindRequest's if/then, INVALID_ARGUMENT); refused the same
 * way here too, in depth.
 */
export function resolveCapacity(requestedPlan: Plan | undefined, requestedProfile: ProfileId | undefined): { plan: Plan; capacity: MindCapacity } {
  const plan = requestedPlan ?? DEFAULT_PLAN;
  const rules = PLAN_PROFILES[plan];
  const profile = requestedProfile ?? rules.default;
  if (!rules.allowed.includes(profile)) {
    throw new ServiceError('INVALID_ARGUMENT', `Profile ${profile} is not available on the ${plan} plan.`, {
      errors: [{ location: 'body.profile_id', message: `must be one of ${rules.allowed.join(', ')} on the ${plan} plan` }],
    });
  }
  return { plan, capacity: { profile_id: profile, ...PROFILE_CAPACITY[profile] } };
}
