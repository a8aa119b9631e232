import { describe, expect, it } from 'vitest';
import { evalError, value } from '../test-support/evaluate.ts';

// Cases from the doc comment of k8s.io/apiserver/pkg/cel/library/urls.go
describe('kube URL library', () => {
  it('url and isURL accept absolute URIs and absolute paths only', () => {
    expect(value("isURL('https://user:pass@example.com:80/path?query=val#fragment')")).toBe(true);
    expect(value("isURL('/absolute-path')")).toBe(true);
    expect(value("isURL('https://a:b:c/')")).toBe(false);
    expect(value("isURL('../relative-path')")).toBe(false);
    expect(value("isURL('')")).toBe(false);
    expect(evalError("url('https://a:b:c/')")).toBe(
      'URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host',
    );
    expect(evalError("url('../relative-path')")).toBe(
      'URL parse error during conversion from string: parse "../relative-path": invalid URI for request',
    );
  });

  it('getScheme, getHost, getHostname, getPort', () => {
    expect(value("url('/path').getScheme()")).toBe('');
    expect(value("url('https://example.com/').getScheme()")).toBe('https');
    expect(value("url('https://example.com:80/').getHost()")).toBe('example.com:80');
    expect(value("url('https://example.com/').getHost()")).toBe('example.com');
    expect(value("url('https://[::1]:80/').getHost()")).toBe('[::1]:80');
    expect(value("url('https://[::1]/').getHost()")).toBe('[::1]');
    expect(value("url('/path').getHost()")).toBe('');
    expect(value("url('https://example.com:80/').getHostname()")).toBe('example.com');
    expect(value("url('https://127.0.0.1:80/').getHostname()")).toBe('127.0.0.1');
    expect(value("url('https://[::1]:80/').getHostname()")).toBe('::1');
    expect(value("url('/path').getHostname()")).toBe('');
    expect(value("url('https://example.com:80/').getPort()")).toBe('80');
    expect(value("url('https://example.com/').getPort()")).toBe('');
    expect(value("url('/path').getPort()")).toBe('');
  });

  it('getEscapedPath', () => {
    expect(value("url('https://example.com/path').getEscapedPath()")).toBe('/path');
    expect(value("url('https://example.com/path with spaces/').getEscapedPath()")).toBe('/path%20with%20spaces/');
    expect(value("url('https://example.com').getEscapedPath()")).toBe('');
    expect(value("url('https://example.com/a%2Fb').getEscapedPath()")).toBe('/a%2Fb');
  });

  it('getQuery in matrix form, unescaped', () => {
    expect(value("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()")).toEqual(
      new Map([
        ['k1', ['a']],
        ['k2', ['b', 'c']],
      ]),
    );
    expect(value("url('https://example.com/path?key with spaces=value with spaces').getQuery()")).toEqual(
      new Map([['key with spaces', ['value with spaces']]]),
    );
    expect(value("url('https://example.com/path?').getQuery()")).toEqual(new Map());
    expect(value("url('https://example.com/path').getQuery()")).toEqual(new Map());
    expect(value("url('https://example.com/path?k=a').getQuery()['k'][0]")).toBe('a');
  });

  it('a fragment is not part of the path or query', () => {
    expect(value("url('https://example.com/p?q=1#frag').getEscapedPath()")).toBe('/p');
    expect(value("url('https://example.com/p?q=1#frag').getQuery()")).toEqual(new Map([['q', ['1']]]));
  });
});
