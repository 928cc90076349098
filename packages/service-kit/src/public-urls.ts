/**
 * The stack's public addresses, derived one way for every process that needs them: the gateway
 * (DPoP proofs name its URL; its own errors link to the docs it serves) and `npm start`, which
 * hands the same docs base to the Minds service, so that every error the stack returns links to
 * the site that stack serves, whatever its port. No imports: `npm start` loads this first.
 */
type Env = Record<string, string | undefined>;

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** Where callers reach the gateway: PUBLIC_BASE_URL, else its own listener (HOST, PORT). */
export function publicBaseUrlOf(env: Env): string {
  return withoutTrailingSlash(env.PUBLIC_BASE_URL || `http://${env.HOST || '127.0.0.1'}:${env.PORT || '8080'}`);
}

/** The base of every `docs_url`: DOCS_BASE_URL, else the site the gateway serves at `<public base>/docs`. */
export function docsBaseUrlOf(env: Env, publicBaseUrl: string = publicBaseUrlOf(env)): string {
  return withoutTrailingSlash(env.DOCS_BASE_URL || `${publicBaseUrl}/docs`);
}
