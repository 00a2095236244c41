// The launched service's environment decides what a bench measures: the image's Node settings unless the
// caller chose others, and this launch's own data directory and port whatever the caller's shell holds.
import { describe, expect, it } from 'vitest';
import { IMAGE_NODE_OPTIONS } from './image-env.ts';
import { COMPILE_CACHE, parseVariants, serviceEnv, serviceMain } from './launch-service.ts';

describe('serviceEnv', () => {
  it("runs the service with the image's Node settings when the caller's environment has none", () => {
    const env = serviceEnv({ PATH: '/bin' }, '/data/a', 4100);
    expect(env).toMatchObject({
      PATH: '/bin',
      NODE_OPTIONS: IMAGE_NODE_OPTIONS,
      NODE_COMPILE_CACHE: COMPILE_CACHE,
      DATA_DIR: '/data/a',
      PORT: '4100',
      HOST: '127.0.0.1',
      MAX_EVENT_LOOP_DELAY_MS: '0',
    });
  });

  it("keeps the caller's NODE_OPTIONS and compile cache over the image's", () => {
    const env = serviceEnv({ NODE_OPTIONS: '--max-old-space-size=64', NODE_COMPILE_CACHE: '/cc' }, '/d', 1);
    expect(env['NODE_OPTIONS']).toBe('--max-old-space-size=64');
    expect(env['NODE_COMPILE_CACHE']).toBe('/cc');
  });

  it("sets this launch's data directory and address over the caller's", () => {
    const env = serviceEnv({ DATA_DIR: '/shared', PORT: '3000', HOST: '0.0.0.0' }, '/mine', 4200);
    expect([env['DATA_DIR'], env['PORT'], env['HOST']]).toEqual(['/mine', '4200', '127.0.0.1']);
  });

  it('puts the overrides over everything, the image settings and the launch own included', () => {
    const env = serviceEnv({ NODE_OPTIONS: '--caller', LOG_LEVEL: 'debug' }, '/d', 1, {
      NODE_OPTIONS: IMAGE_NODE_OPTIONS,
      LOG_LEVEL: 'warn',
      MAX_EVENT_LOOP_DELAY_MS: '50',
    });
    expect([env['NODE_OPTIONS'], env['LOG_LEVEL'], env['MAX_EVENT_LOOP_DELAY_MS']]).toEqual([
      IMAGE_NODE_OPTIONS,
      'warn',
      '50',
    ]);
  });
});

describe('serviceMain', () => {
  it("is a service's src/main.ts in the given checkout", () => {
    expect(serviceMain('/co', 'revocation')).toBe('/co/services/revocation/src/main.ts');
  });
});

describe('parseVariants', () => {
  it("takes a variant's NAME=value words as the service's variables and the rest as Node flags", () => {
    expect(parseVariants('piscina=;plain=VERIFY_POOL_ENGINE=threads --max-semi-space-size=16', 'V')).toEqual([
      { label: 'piscina', flags: [], env: {} },
      { label: 'plain', flags: ['--max-semi-space-size=16'], env: { VERIFY_POOL_ENGINE: 'threads' } },
    ]);
  });
});
