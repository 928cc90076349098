import type { ServiceOperationId } from '@gateway-minds/contract';
import type { HandlerTable } from '@gateway-minds/service-kit';
type Minds = HandlerTable<ServiceOperationId<'minds'>>;
declare const complete: Minds;
export const table = { ...complete } satisfies Minds;
