import { describe, expect, it } from 'vitest';
import { managerOrUserAgent, prefixFromUserAgent } from './user-agent.ts';

describe('prefixFromUserAgent', () => {
  it('takes what precedes the first slash', () => {
    expect(prefixFromUserAgent('kubectl/v1.31.0 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(prefixFromUserAgent('kube-controller-manager/v1.31.0')).toBe('kube-controller-manager');
    expect(prefixFromUserAgent('curl')).toBe('curl');
    expect(prefixFromUserAgent('')).toBe('');
  });

  it('drops unprintable characters and stops at 128 bytes without splitting a character', () => {
    expect(prefixFromUserAgent('a\tb\u0000c/x')).toBe('abc');
    expect(prefixFromUserAgent('x'.repeat(200))).toBe('x'.repeat(128));
    // 127 bytes then a two-byte character: it does not fit.
    expect(prefixFromUserAgent(`${'x'.repeat(127)}é`)).toBe('x'.repeat(127));
  });
});

describe('managerOrUserAgent', () => {
  it('prefers the fieldManager', () => {
    expect(managerOrUserAgent('me', 'kubectl/v1')).toBe('me');
    expect(managerOrUserAgent(undefined, 'kubectl/v1')).toBe('kubectl');
    expect(managerOrUserAgent('', undefined)).toBe('');
  });
});
