import { describe, expect, it } from 'vitest';
import { RequestInfoResolver } from '../request-info.ts';
import { cleanDryRun, cleanScope, reportedVerb } from './labels.ts';

const resolver = new RequestInfoResolver();

function verbOf(method: string, target: string, contentType?: string): string {
  const info = resolver.resolve(method, target);
  const url = new URL(target, 'http://x');
  return reportedVerb({ method, query: url.searchParams, contentType }, info, info.verb === 'watch' ? 'WATCH' : '');
}

describe('metrics labels (kube endpoints/metrics)', () => {
  it('reports kube clean verbs', () => {
    expect(verbOf('GET', '/api/v1/namespaces/default/pods/p')).toBe('GET');
    expect(verbOf('GET', '/api/v1/namespaces/default/pods')).toBe('LIST');
    expect(verbOf('HEAD', '/api/v1/pods')).toBe('LIST');
    expect(verbOf('GET', '/api/v1/pods?watch=true')).toBe('WATCH');
    expect(verbOf('GET', '/api/v1/pods?watch=false')).toBe('LIST');
    expect(verbOf('GET', '/api/v1/pods?watch=0')).toBe('LIST');
    expect(verbOf('GET', '/api/v1/namespaces/default/pods/p?watch=1')).toBe('WATCH');
    expect(verbOf('GET', '/api/v1/watch/namespaces/default/pods')).toBe('WATCH');
    expect(verbOf('POST', '/api/v1/namespaces/default/pods')).toBe('POST');
    expect(verbOf('PUT', '/api/v1/namespaces/default/pods/p')).toBe('PUT');
    expect(verbOf('PATCH', '/api/v1/namespaces/default/pods/p', 'application/merge-patch+json')).toBe('PATCH');
    expect(verbOf('PATCH', '/api/v1/namespaces/default/pods/p', 'application/apply-patch+yaml')).toBe('APPLY');
    expect(verbOf('DELETE', '/api/v1/namespaces/default/pods/p')).toBe('DELETE');
    expect(verbOf('DELETE', '/api/v1/namespaces/default/pods')).toBe('DELETE');
    expect(verbOf('GET', '/api/v1/namespaces/default/pods/p/log')).toBe('CONNECT');
    expect(verbOf('POST', '/api/v1/namespaces/default/pods/p/exec')).toBe('CONNECT');
    expect(verbOf('OPTIONS', '/api/v1/pods')).toBe('other');
    expect(verbOf('GET', '/healthz')).toBe('GET');
  });

  it('computes kube scopes', () => {
    const scope = (m: string, t: string) => cleanScope(resolver.resolve(m, t));
    expect(scope('GET', '/api/v1/namespaces/ns/pods/p')).toBe('resource');
    expect(scope('POST', '/api/v1/namespaces/ns/pods')).toBe('resource');
    expect(scope('GET', '/api/v1/namespaces/ns/pods')).toBe('namespace');
    expect(scope('GET', '/apis/apps/v1/deployments')).toBe('cluster');
    expect(scope('GET', '/healthz')).toBe('');
  });

  it('cleans dryRun', () => {
    const dry = (q: string) => cleanDryRun(q, new URLSearchParams(q));
    expect(dry('')).toBe('');
    expect(dry('dryRun=All')).toBe('All');
    expect(dry('dryRun=All&dryRun=All')).toBe('All');
    expect(dry('dryRun=Yes')).toBe('invalid');
    expect(dry('dryRun=')).toBe('invalid');
  });
});
