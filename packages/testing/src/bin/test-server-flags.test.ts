import { describe, expect, it } from 'vitest';
import { parseTestServerFlags, UsageError } from './test-server-flags.ts';

describe('parseTestServerFlags', () => {
  it('defaults: a free port, ./kapi-test.kubeconfig, no CRDs, plain HTTP', () => {
    expect(parseTestServerFlags([], '/w')).toEqual({
      port: 0,
      kubeconfig: '/w/kapi-test.kubeconfig',
      crds: [],
      tls: false,
      exitOnStdinClose: false,
      help: false,
    });
  });

  it('takes every flag, --crds repeated, paths relative to the working directory', () => {
    const flags = parseTestServerFlags(
      [
        '--port',
        '6443',
        '--kubeconfig',
        'k/config',
        '--crds',
        'a',
        '--crds=/abs/b.yaml',
        '--tls',
        '--storage',
        'memory',
        '--exit-on-stdin-close',
      ],
      '/w',
    );
    expect(flags).toEqual({
      port: 6443,
      kubeconfig: '/w/k/config',
      crds: ['/w/a', '/abs/b.yaml'],
      tls: true,
      exitOnStdinClose: true,
      help: false,
    });
    expect(parseTestServerFlags(['-h'], '/w').help).toBe(true);
  });

  it.each([
    [['--port=-1'], /--port must be 0\.\.65535/],
    [['--port', '65536'], /--port must be 0\.\.65535/],
    [['--port', '1.5'], /--port must be 0\.\.65535/],
    [['--storage', 'etcd://127.0.0.1:2379'], /--storage must be memory, not "etcd:\/\/127\.0\.0\.1:2379"/],
    [['--bogus'], /bogus/],
    [['positional'], /positional/],
    [['--kubeconfig'], /kubeconfig/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseTestServerFlags(argv, '/w')).toThrow(UsageError);
    expect(() => parseTestServerFlags(argv, '/w')).toThrow(message);
  });
});
