/**
 * Plain HTTP against a deployment's gateways, so that a test sees exactly what a caller sees. Paths
 * are written out as the interface gives them: a test checks the contract from outside.
 */
import { randomUUID } from 'node:crypto';
import { AdminRequestError, call, type AdminClient, type Answer, type CallOptions, type IssuedCredential } from '@gateway-minds/testkit';

export { call, type Answer, type CallOptions } from '@gateway-minds/testkit';

/**
 * A signed-in session (a bridge_session of the development organization, issued through the admin
 * API) that takes a new credential every `budget` calls: the deployment's per-credential rate
 * limit is small, so that the rate-limit test can reach it, and no other test may meet it.
 */
export class Session {
  #credential: Promise<IssuedCredential> | undefined;
  #used = 0;

  constructor(
    private readonly admin: AdminClient,
    private readonly budget: number,
    /** Where its credentials are issued (organization_id, project_id); the development organization by default. */
    private readonly issueOptions: Record<string, unknown> = {},
  ) {}

  /** The credential of the next call (counted). */
  async token(): Promise<string> {
    if (!this.#credential || this.#used >= this.budget) {
      this.#credential = this.#issue();
      this.#used = 0;
    }
    this.#used++;
    return (await this.#credential).token;
  }

  /**
   * A new credential, asked again while the admin API answers 503: a test that cuts the database
   * connections keeps its load running through the cut, and the credential is its tool, not what it checks.
   */
  async #issue(): Promise<IssuedCredential> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.admin.issue('bridge_session', this.issueOptions);
      } catch (error) {
        if (!(error instanceof AdminRequestError && error.status === 503) || attempt === 40) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  async call(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    return call(baseUrl, await this.token(), method, path, options);
  }
}

export const newKey = () => randomUUID();

/** The creation context a create asserts: the fingerprint from the list result. */
export async function creationContext(session: Session, baseUrl: string): Promise<string> {
  const list = await session.call(baseUrl, 'GET', '/v1/minds/services');
  if (list.status !== 200) throw new Error(`listMinds: ${list.status} ${JSON.stringify(list.body)}`);
  return list.body.context_sha256 as string;
}

export async function createMind(session: Session, baseUrl: string, name: string, key = newKey(), context?: string): Promise<Answer> {
  return session.call(baseUrl, 'POST', '/v1/minds/services', {
    body: { name },
    headers: { 'idempotency-key': key, 'x-platform-minds-creation-context': context ?? (await creationContext(session, baseUrl)) },
  });
}

/** Waits until the Mind's owned read says `status` (checked every 100 ms, for up to 20 s). */
export async function waitForStatus(session: Session, baseUrl: string, mindId: string, status: string): Promise<any> {
  let last: Answer | undefined;
  for (let attempt = 0; attempt < 200; attempt++) {
    last = await session.call(baseUrl, 'GET', `/v1/minds/services/${mindId}`);
    if (last.body?.status === status) return last.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Mind ${mindId} not ${status} in time: ${JSON.stringify(last?.body)}`);
}

/** Creates a Mind through the gateway at `baseUrl` and waits for it to be ready. */
export async function readyMind(session: Session, baseUrl: string, name: string): Promise<any> {
  const created = await createMind(session, baseUrl, name);
  if (created.status !== 202) throw new Error(`createMind: ${created.status} ${JSON.stringify(created.body)}`);
  return waitForStatus(session, baseUrl, created.body.mind_id, 'ready');
}
