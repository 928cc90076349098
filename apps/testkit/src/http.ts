/** Plain HTTP through a gateway, so that a test sees exactly what a caller sees: status, headers, body. */

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

/** One request to `baseUrl` with `token` as its bearer (none if null); a JSON body when one is given. */
export async function call(baseUrl: string, token: string | null, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}
