import { describe, expect, it } from 'vitest';
import { parseGoDuration, tokenOptionsFromFlags } from './token-flags.ts';

describe('token authenticator flags', () => {
  it('reads kube-apiserver’s flags', () => {
    expect(tokenOptionsFromFlags({})).toEqual({});
    expect(
      tokenOptionsFromFlags({
        'api-audiences': 'https://kapi,vault',
        'enable-bootstrap-token-auth': 'false',
        'authentication-token-webhook-config-file': '/etc/kapi/webhook.yaml',
        'authentication-token-webhook-cache-ttl': '30s',
        'basic-auth-file': '/etc/kapi/passwords.csv',
      }),
    ).toEqual({
      apiAudiences: ['https://kapi', 'vault'],
      enableBootstrapTokenAuth: false,
      authenticationTokenWebhookConfigFile: '/etc/kapi/webhook.yaml',
      authenticationTokenWebhookCacheTtlMs: 30_000,
      basicAuthFile: '/etc/kapi/passwords.csv',
    });
  });

  it('refuses what kube-apiserver refuses', () => {
    expect(() => tokenOptionsFromFlags({ 'enable-bootstrap-token-auth': 'yes' })).toThrow(/must be true or false/);
    expect(() => tokenOptionsFromFlags({ 'authentication-token-webhook-cache-ttl': '1m' })).toThrow(
      /needs --authentication-token-webhook-config-file/,
    );
    expect(() =>
      tokenOptionsFromFlags({ 'authentication-token-webhook-config-file': 'x', 'authentication-token-webhook-cache-ttl': 'soon' }),
    ).toThrow(/invalid duration "soon"/);
  });

  it('parses Go durations', () => {
    expect(parseGoDuration('2m0s')).toBe(120_000);
    expect(parseGoDuration('1h30m')).toBe(5_400_000);
    expect(parseGoDuration('500ms')).toBe(500);
    expect(parseGoDuration('1.5s')).toBe(1500);
    expect(() => parseGoDuration('10')).toThrow();
    expect(() => parseGoDuration('10s junk')).toThrow();
  });
});
