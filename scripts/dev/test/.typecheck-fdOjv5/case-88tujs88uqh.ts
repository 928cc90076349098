import type { ServiceOperationId } from '@gateway-minds/contract';
import type { HandlerTable } from '@gateway-minds/service-kit';
type Minds = HandlerTable<ServiceOperationId<'minds'>>;
declare const complete: Minds;
const { minds_getUsage: _left, ...rest } = complete;
export const table = { ...rest } satisfies Minds;
