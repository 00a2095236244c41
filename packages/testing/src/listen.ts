// Starts a built app (Fastify) on 127.0.0.1 with an ephemeral port, the one way every service test listens.
// docs/architecture.md §6 (end-to-end tests over real HTTP; a listening server for load and shutdown).

/** What listenOnPort0 needs of an app: Fastify's listen/close and its node server (no Fastify import here). */
export interface Listenable {
  listen(options: { port: number; host: string }): Promise<string>;
  close(): Promise<unknown>;
  readonly server: { address(): unknown };
}

export interface ListeningApp<App> {
  readonly app: App;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function listenOnPort0<App extends Listenable>(app: App): Promise<ListeningApp<App>> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address !== 'object' || !('port' in address)) {
    await app.close();
    throw new Error('the app is not listening on a TCP port');
  }
  const port = (address as { port: number }).port;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      await app.close();
    },
  };
}
