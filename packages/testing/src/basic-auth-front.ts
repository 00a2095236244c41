// An upstream behind HTTP basic auth (an explorer, a witness, a node an operator reaches as `https://user:pw@host/…`):
// a front that answers 401 to any request without exactly that credential and passes the others on to the real
// upstream, so a test sees both that the credential arrived and that the honest exchange still worked (P610).
import { answerJson } from './hostile-answers.ts';
import { forwardTo, type HostileFront, startHostileFront } from './hostile-front.ts';

/** The `Authorization` value a client makes of `user:password` (RFC 7617, UTF-8). */
export function basicAuthorization(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

/** A front before `upstream` (`http://host:port`) that lets through only `Authorization: Basic user:password`. */
export async function startBasicAuthFront(
  upstream: string,
  user: string,
  password: string,
): Promise<HostileFront> {
  const expected = basicAuthorization(user, password);
  return await startHostileFront(async (request, res) => {
    if (request.headers.authorization !== expected) {
      res.setHeader('www-authenticate', 'Basic realm="upstream"');
      return answerJson(res, 401, { error: 'unauthorized' });
    }
    const answer = await forwardTo(`${upstream}${request.url}`, request);
    const contentType = answer.headers.get('content-type');
    res.writeHead(answer.status, contentType === null ? {} : { 'content-type': contentType });
    res.end(Buffer.from(await answer.arrayBuffer()));
    return undefined;
  });
}
