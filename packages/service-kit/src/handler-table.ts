/**
 * Handler tables typed by the contract. A service binds one handler per operation of its own, keyed
 * by operation id; typing the table as `HandlerTable<ServiceOperationId<'minds'>>` turns an
 * operation added to the spec without a handler into a type error in `npm run build` that names the
 * operation, at the table that needs it, instead of a crash when the stack starts
 * (createServiceApp's own check stays as the last line).
 *
 * `npm run scaffold:handler -- <operationId>` writes a stub typed with ContractHandler<Id>.
 */
import type { NextFunction, Request, Response } from 'express';
import type { OperationId, operations } from '@gateway-minds/contract';

type OperationTypes<Id extends OperationId> = operations[Id];
type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** The operation's path parameters, as the validator leaves them (strings). */
export type PathParamsOf<Id extends OperationId> = OperationTypes<Id> extends { parameters: { path: infer Path } } ? (Path extends Record<string, unknown> ? Path : Record<string, never>) : Record<string, never>;
/** The operation's JSON request body; `undefined` for an operation that takes none. */
export type RequestBodyOf<Id extends OperationId> = OperationTypes<Id> extends { requestBody: infer Body } ? JsonOf<NonNullable<Body>> : OperationTypes<Id> extends { requestBody?: infer Body } ? ([Body] extends [never] ? undefined : JsonOf<NonNullable<Body>>) : undefined;
/** The JSON body of the operation's success answer (its 200, 201 or 202). */
export type SuccessBodyOf<Id extends OperationId> = {
  [Status in keyof OperationTypes<Id>['responses']]: Status extends 200 | 201 | 202 ? JsonOf<OperationTypes<Id>['responses'][Status]> : never;
}[keyof OperationTypes<Id>['responses']];

/** The Express request and response of one operation, typed by the contract. */
export type ContractRequest<Id extends OperationId> = Request<PathParamsOf<Id>, SuccessBodyOf<Id>, RequestBodyOf<Id>>;
export type ContractResponse<Id extends OperationId> = Response<SuccessBodyOf<Id>>;

/**
 * A handler for one operation. Declared as a method so that its parameters are compared both ways:
 * the table accepts handlers written against plain `Request`/`Response` as well as ones typed by
 * the contract, while a missing or unknown operation id is still a type error.
 */
export type ContractHandler<Id extends OperationId> = {
  handle(req: ContractRequest<Id>, res: ContractResponse<Id>, next: NextFunction): unknown;
}['handle'];

/** Exactly one handler per operation id in `Id`. */
export type HandlerTable<Id extends OperationId> = { [K in Id]: ContractHandler<K> };
