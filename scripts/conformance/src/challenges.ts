/**
 * A strict reader of `WWW-Authenticate` (RFC 9110 §11.6.1), for judging what
 * the servers send: it accepts exactly the grammar a sender may generate and
 * throws on anything else. (oauth4webapi, which the DPoP suite also uses,
 * parses the same header leniently, as a recipient should; a judge must not.)
 *
 *   WWW-Authenticate = 1#challenge                 (§5.6.1: no empty elements from a sender)
 *   challenge   = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
 *   auth-param  = token BWS "=" BWS ( token / quoted-string )
 *   token68     = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
 *
 * Each auth-param name occurs at most once per challenge (§11.2), and the
 * `realm` value is a quoted-string in every challenge that has one.
 */

export interface Challenge {
  /** As sent; schemes compare case-insensitively (§11.1). */
  scheme: string;
  /** Names lower-cased (they compare case-insensitively, §11.2); values unquoted. */
  params: Record<string, string>;
  token68?: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;
const QUOTED = /^"((?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*)"/;
const OWS = /^[ \t]*/;

export function parseChallenges(header: string | null | undefined): Challenge[] {
  if (header === null || header === undefined) throw new Error('no WWW-Authenticate header');
  let rest = header;
  const fail = (what: string): never => {
    throw new Error(`WWW-Authenticate is not RFC 9110 §11.6.1 grammar (${what}) at ${JSON.stringify(rest.slice(0, 40))} in ${JSON.stringify(header)}`);
  };
  const take = (pattern: RegExp): RegExpExecArray | null => {
    const match = pattern.exec(rest);
    if (match) rest = rest.slice(match[0].length);
    return match;
  };
  /** OWS "," OWS between list elements; false at the end of the value. */
  const listSeparator = (): boolean => {
    if (rest === '') return false;
    take(OWS);
    if (!take(/^,/)) fail('expected "," between list elements');
    take(OWS);
    if (rest === '' || rest.startsWith(',')) fail('empty list element');
    return true;
  };
  /** Whether the text ahead is an auth-param (token BWS "="), not the next challenge's scheme. */
  const paramAhead = (): boolean => /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+[ \t]*=(?!=*(?:[ \t]*,|$))/.test(rest) || /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+[ \t]*=[ \t]*"/.test(rest);

  const challenges: Challenge[] = [];
  if (rest.trim() === '') fail('empty value');
  for (;;) {
    const scheme = take(TOKEN)?.[0] ?? fail('expected an auth-scheme token');
    const challenge: Challenge = { scheme, params: {} };
    challenges.push(challenge);
    if (!take(/^ +/)) {
      if (!listSeparator()) break;
      continue;
    }
    if (!paramAhead()) {
      challenge.token68 = take(TOKEN68)?.[0] ?? fail('expected token68 or auth-param after the scheme');
      if (!listSeparator()) break;
      continue;
    }
    let more = true;
    while (more && paramAhead()) {
      const name = take(TOKEN)![0].toLowerCase();
      take(OWS);
      take(/^=/);
      take(OWS);
      const quoted = take(QUOTED);
      const value = quoted ? quoted[1]!.replace(/\\(.)/g, '$1') : (take(TOKEN)?.[0] ?? fail(`expected a token or quoted-string value for ${name}`));
      if (name in challenge.params) fail(`auth-param ${name} repeated in one challenge`);
      if (name === 'realm' && !quoted) fail('realm must be a quoted-string');
      challenge.params[name] = value;
      more = listSeparator();
    }
    if (!more) break;
  }
  return challenges;
}
