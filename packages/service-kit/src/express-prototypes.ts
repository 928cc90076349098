/**
 * Express 5 gives every request and response its app's prototype as the request arrives
 * (`Object.setPrototypeOf(req, app.request)` in `app.handle`). On V8 that changes the hidden
 * class of two fresh objects per request, and every property read on them afterwards misses its
 * inline cache: `perf record` of the gateway on `whoami` showed V8's lookup and IC-miss runtime
 * (LookupIterator, LoadIC_Miss, MigrateToMap) above the JavaScript itself. Born with the app's
 * prototypes, they cost a bare Express app about a third of the CPU per request (figures in
 * bench/README.md).
 *
 * Node's HTTP server constructs its requests and responses from classes it is given. These
 * classes are Node's own, with the app's `request` and `response` objects as their prototypes
 * (those already inherit from Node's), so Express's `setPrototypeOf` finds the prototype it would
 * set and V8 leaves the object as it is. A request another Express app handles (the gateway's
 * /docs site) still gets that app's prototype from Express, as before.
 *
 * This uses Node's public server options only (`IncomingMessage`, `ServerResponse`) and loads
 * nothing of Express's own files. It leans on how Express sets the prototypes: were Express to
 * stop setting them, or set other objects, requests would be as slow as before, never wrong
 * (dependency-internals.ts lists it for that reason; test/express-prototypes.test.ts checks it).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

export interface ServerClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

export function serverClassesFor(app: Express): ServerClasses {
  // Constructor functions, as Node's own are, so that Node's constructors run on `this` unchanged.
  function AppRequest(this: IncomingMessage, ...args: ConstructorParameters<typeof IncomingMessage>) {
    IncomingMessage.apply(this, args);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, ...args: ConstructorParameters<typeof ServerResponse>) {
    ServerResponse.apply(this, args);
  }
  AppResponse.prototype = app.response;
  return { IncomingMessage: AppRequest as unknown as typeof IncomingMessage, ServerResponse: AppResponse as unknown as typeof ServerResponse };
}
