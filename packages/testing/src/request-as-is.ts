// A request sent exactly as the attack needs it: a path byte for byte, a charset label or a Content-Encoding
// header fetch would re-encode, refuse or rewrite. Over node:http, so the service sees what the test wrote.
import { type IncomingHttpHeaders, request } from 'node:http';

export interface AsIsAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

export interface AsIsRequest {
  readonly method?: string;
  /** Sent as it is in the request line (default: the URL's own path). */
  readonly path?: string;
  readonly headers?: Record<string, string>;
  /** Sent with its Content-Length. */
  readonly body?: Buffer;
}

/** Sends `options` to `url` with nothing added but a body's Content-Length; its answer read as UTF-8 text. */
export function requestAsIs(url: string, options: AsIsRequest = {}): Promise<AsIsAnswer> {
  const { body } = options;
  const headers = { ...options.headers, ...(body === undefined ? {} : { 'content-length': body.length }) };
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? (body === undefined ? 'GET' : 'POST'),
        headers,
        ...(options.path === undefined ? {} : { path: options.path }),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
