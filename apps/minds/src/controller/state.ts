/**
 * The three state fields of a Mind and how they relate (the interface leaves
 * the mapping "not shown"; spec/DECISIONS.md fixes create/resume/stop; this is
 * the rest, also in apps/minds/README.md).
 *
 * desired_state / desired_generation — written only by the API:
 *   create                 desired running, desired_generation 1
 *   accepted resume        desired running, desired_generation + 1
 *   accepted stop          desired stopped, desired_generation + 1
 *
 * observed_state / observed_generation — what the host last reported, written
 * by the controller (the API sets observed `pending` on create and accepted
 * resume, as DECISIONS.md says, until the host reports):
 *   host pending           pending      (provisioning or starting; not serving)
 *   host running           running      (a stop in progress still reports running)
 *   host stopped           stopped      (volume retained)
 *   host failed            failed       (the action for that generation failed; error_code set)
 *   host unreachable       uncertain    (the state is unknown; nothing is re-sent)
 *   host absent            uncertain    (the host lost an instance it should have)
 *   observed_generation is the generation the host last finished applying
 *   (0 before its first report), as Kubernetes' status.observedGeneration.
 *
 * status — derived from both, recomputed on every write (deriveStatus):
 *   observed failed                                  -> failed
 *   observed uncertain                               -> uncertain
 *   desired running, observed running at desired gen -> ready
 *   desired running, anything else                   -> provisioning
 *   desired stopped, observed stopped                -> stopped
 *   desired stopped, observed running                -> ready (until the host reports stopped)
 *   desired stopped, observed pending                -> provisioning
 *   (desired/observed deleted -> deleted: no operation deletes a Mind)
 *
 * Retries: the controller hands each generation to the host once
 * (host_requested_generation) and afterwards only observes. A failed or
 * uncertain Mind stays so until the owner resumes or stops it (a new generation).
 */
import type { Schemas } from '@gateway-minds/contract';

export type DesiredState = Schemas['MindDesiredState'];
export type ObservedState = Schemas['MindObservedState'];
export type MindStatus = Schemas['MindStatus'];

export function deriveStatus(desired: DesiredState, observed: ObservedState, desiredGeneration: number, observedGeneration: number): MindStatus {
  if (desired === 'deleted' || observed === 'deleted') return 'deleted';
  if (observed === 'failed') return 'failed';
  if (observed === 'uncertain') return 'uncertain';
  if (desired === 'running') return observed === 'running' && observedGeneration === desiredGeneration ? 'ready' : 'provisioning';
  if (observed === 'stopped') return 'stopped';
  if (observed === 'running') return 'ready';
  return 'provisioning';
}

/**
 * The same rule in SQL, for an UPDATE that must read the row's current desired
 * fields: pass the expressions of the new observed values (SET expressions see
 * the row as it was before the update).
 */
export function statusSql(observedState: string, observedGeneration: string): string {
  return `CASE
    WHEN desired_state = 'deleted' OR ${observedState} = 'deleted' THEN 'deleted'
    WHEN ${observedState} = 'failed' THEN 'failed'
    WHEN ${observedState} = 'uncertain' THEN 'uncertain'
    WHEN desired_state = 'running' THEN
      CASE WHEN ${observedState} = 'running' AND ${observedGeneration} = desired_generation THEN 'ready' ELSE 'provisioning' END
    WHEN ${observedState} = 'stopped' THEN 'stopped'
    WHEN ${observedState} = 'running' THEN 'ready'
    ELSE 'provisioning'
  END`;
}
