import { describe, expect, it } from 'vitest';
import { CelEnvironment } from '../environment.ts';
import { type AuthzCheck, CelAuthorizer } from './authz.ts';

const env = new CelEnvironment({ variables: { authorizer: 'kubernetes.authorization.Authorizer' } });

function run(expression: string, decide: (c: AuthzCheck) => 'Allow' | 'Deny' | 'NoOpinion' | Error = () => 'Allow') {
  const asked: AuthzCheck[] = [];
  const authorizer = new CelAuthorizer(
    (check) => {
      asked.push(check);
      const d = decide(check);
      return d instanceof Error ? { decision: 'NoOpinion', reason: '', error: d.message } : { decision: d, reason: `said ${d}` };
    },
    { group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'ns', name: 'web' },
  );
  const compiled = env.compile(expression);
  if (compiled.kind === 'error') throw compiled.error;
  return { result: compiled.program.evaluate({ authorizer }), asked };
}

describe('authz library', () => {
  it('checks a resource with group, resource, subresource, namespace and name at version *', () => {
    const { result, asked } = run(
      "authorizer.group('apps').resource('deployments').subresource('status').namespace('ns').name('n').check('update').allowed()",
    );
    expect(result).toMatchObject({ kind: 'value', value: true });
    expect(asked).toEqual([
      {
        resourceRequest: true,
        verb: 'update',
        path: '',
        group: 'apps',
        version: '*',
        resource: 'deployments',
        subresource: 'status',
        namespace: 'ns',
        name: 'n',
        fieldSelector: '',
        labelSelector: '',
      },
    ]);
    expect(result.cost).toBeGreaterThanOrEqual(350_000);
  });

  it('checks a path; reason, errored and error read the answer', () => {
    expect(run("authorizer.path('/healthz').check('get').reason()", () => 'Deny').result).toMatchObject({ value: 'said Deny' });
    expect(run("authorizer.path('/healthz').check('get').allowed()", () => 'NoOpinion').result).toMatchObject({ value: false });
    const failed = run("authorizer.path('/x').check('get')", () => new Error('webhook down')).asked;
    expect(failed[0]).toMatchObject({ resourceRequest: false, path: '/x', verb: 'get' });
    expect(run("authorizer.path('/x').check('get').errored()", () => new Error('boom')).result).toMatchObject({ value: true });
    expect(run("authorizer.path('/x').check('get').error()", () => new Error('boom')).result).toMatchObject({ value: 'boom' });
    expect(run("authorizer.path('/x').check('get').error()").result).toMatchObject({ value: '' });
  });

  it('asks about a service account, and about the request resource', () => {
    const { asked } = run("authorizer.serviceAccount('default', 'builder').group('').resource('pods').check('list').allowed()");
    expect(asked[0]).toMatchObject({ serviceAccount: { namespace: 'default', name: 'builder' }, resource: 'pods', verb: 'list' });
    const request = run("authorizer.requestResource.check('patch').allowed()").asked;
    expect(request[0]).toMatchObject({ group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'ns', name: 'web' });
  });

  it("gives kube's errors for empty paths, resources and invalid service accounts", () => {
    expect(run("authorizer.path(' ').check('get')").result).toMatchObject({ kind: 'error', error: { message: 'path must not be empty' } });
    expect(run("authorizer.group('').resource('').check('get')").result).toMatchObject({
      error: { message: 'resource must not be empty' },
    });
    expect(run("authorizer.serviceAccount('ns', 'Bad@').path('/').check('get')").result).toMatchObject({
      error: { message: 'Invalid service account name' },
    });
    expect(run("authorizer.serviceAccount('bad.ns', 'ok').path('/').check('get')").result).toMatchObject({
      error: { message: 'Invalid service account namespace' },
    });
  });

  it('type-checks its functions', () => {
    const bad = env.compile("authorizer.group('').check('get')");
    expect(bad.kind).toBe('error');
  });
});
