import type { AuthorizationAttributes, Authorizer } from '@kapi/authz';
import { describe, expect, it } from 'vitest';
import { AdmissionCompiler } from './compiler.ts';
import { AdmissionEvaluation, BUDGET_EXCEEDED_MESSAGE } from './evaluation.ts';
import { testAttributes } from './test-support/attributes.ts';

/** An authorizer that allows what `allow` says, and remembers what it was asked. */
function recordingAuthorizer(allow: (a: AuthorizationAttributes) => boolean): Authorizer & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    async authorize(attrs) {
      asked.push(attrs);
      return allow(attrs) ? { decision: 'Allow', reason: 'rule 1' } : { decision: 'NoOpinion', reason: 'no rule' };
    },
  };
}

async function value(expression: string, input: Partial<ConstructorParameters<typeof AdmissionEvaluation>[0]> = {}) {
  const compiler = new AdmissionCompiler({ params: true });
  const compiled = compiler.compile(expression, ['dyn'], { authorizer: true });
  if (compiled.error) throw new Error(compiled.error);
  return new AdmissionEvaluation({ attrs: testAttributes(), ...input }).evaluate(compiled);
}

describe('admission activation', () => {
  it('exposes request shaped as an AdmissionRequest', async () => {
    expect(await value('request')).toEqual({
      kind: 'value',
      value: expect.objectContaining({ operation: 'CREATE', name: 'web', namespace: 'default', dryRun: false }),
    });
    expect(await value("request.kind.group + '/' + request.resource.resource + ':' + request.userInfo.username")).toEqual({
      kind: 'value',
      value: 'apps/deployments:alice',
    });
    expect(await value("request.userInfo.groups.exists(g, g == 'devs') && request.requestKind.kind == 'Deployment'")).toEqual({
      kind: 'value',
      value: true,
    });
    expect(await value('has(request.subResource)')).toEqual({ kind: 'value', value: false });
    const status = await value("request.subResource == 'status'", { attrs: testAttributes({ subresource: 'status' }) });
    expect(status).toEqual({ kind: 'value', value: true });
    const opts = await value('request.options.fieldManager', {
      attrs: testAttributes({ operationOptions: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', fieldManager: 'kubectl' } }),
    });
    expect(opts).toEqual({ kind: 'value', value: 'kubectl' });
  });

  it('type-checks request and namespaceObject', () => {
    const compiler = new AdmissionCompiler();
    expect(compiler.compile('request.nmae', ['dyn']).error).toMatch(/^compilation failed: ERROR: <input>:1:8: undefined field 'nmae'/);
    expect(compiler.compile('params.x', ['dyn']).error).toMatch(/undeclared reference to 'params'/);
    expect(compiler.compile('authorizer.path("/").check("get").allowed()', ['bool']).error).toMatch(/undeclared reference to 'authorizer'/);
    expect(compiler.compile("namespaceObject.metadata.labels['env'] == 'prod'", ['bool']).error).toBeUndefined();
    expect(compiler.compile('object.spec.replicas + 1', ['bool']).error).toBe('must evaluate to bool but got int');
    expect(compiler.compile('1', ['string', 'null_type']).error).toBe('must evaluate to one of [string null_type] but got int');
  });

  it('gives object, oldObject, params and namespaceObject; integers are 64-bit', async () => {
    expect(await value('object.spec.replicas * 3074457345618258602')).toEqual({ kind: 'value', value: 9223372036854775806n });
    expect(await value('object.spec.replicas * 3074457345618258603')).toEqual({
      kind: 'error',
      message: "expression 'object.spec.replicas * 3074457345618258603' resulted in error: integer overflow",
    });
    expect(await value('oldObject == null && params == null')).toEqual({ kind: 'value', value: true });
    expect(await value('params.data.max', { params: { data: { max: '5' } } })).toEqual({ kind: 'value', value: '5' });
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { env: 'prod' } } };
    expect(await value("namespaceObject.metadata.labels.env == 'prod'", { namespaceObject: ns })).toEqual({ kind: 'value', value: true });
  });

  it('asks the authorizer, once per check, with the user or a service account', async () => {
    const authz = recordingAuthorizer((a) => a.verb === 'create');
    const compiler = new AdmissionCompiler();
    const check = compiler.compile(
      "authorizer.group('apps').resource('deployments').namespace('default').check('create').allowed() && !authorizer.requestResource.check('delete').allowed()",
      ['bool'],
      { authorizer: true },
    );
    const evaluation = new AdmissionEvaluation({ attrs: testAttributes(), authorizer: authz });
    expect(await evaluation.evaluate(check)).toEqual({ kind: 'value', value: true });
    expect(authz.asked).toHaveLength(2);
    expect(authz.asked[0]).toEqual({
      user: { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] },
      verb: 'create',
      resourceRequest: true,
      namespace: 'default',
      apiGroup: 'apps',
      apiVersion: '*',
      resource: 'deployments',
      subresource: '',
      name: '',
      path: '',
    });
    expect(authz.asked[1]).toMatchObject({ verb: 'delete', name: 'web', namespace: 'default', resource: 'deployments' });
    // answers are kept for the request
    expect(await evaluation.evaluate(check)).toEqual({ kind: 'value', value: true });
    expect(authz.asked).toHaveLength(2);

    const sa = compiler.compile("authorizer.serviceAccount('kube-system', 'builder').path('/metrics').check('get').reason()", ['string'], {
      authorizer: true,
    });
    expect(await evaluation.evaluate(sa)).toEqual({ kind: 'value', value: 'no rule' });
    expect(authz.asked[2]).toMatchObject({
      user: { name: 'system:serviceaccount:kube-system:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'] },
      resourceRequest: false,
      path: '/metrics',
      verb: 'get',
      apiVersion: '',
    });
  });

  it('reports an authorizer error as the decision error', async () => {
    const failing: Authorizer = {
      authorize: async () => {
        throw new Error('webhook authorizer unreachable');
      },
    };
    const compiler = new AdmissionCompiler();
    const check = compiler.compile("authorizer.path('/x').check('get').error()", ['string'], { authorizer: true });
    expect(await new AdmissionEvaluation({ attrs: testAttributes(), authorizer: failing }).evaluate(check)).toEqual({
      kind: 'value',
      value: 'webhook authorizer unreachable',
    });
  });

  it('evaluates variables lazily, once, in order; their errors surface where read', async () => {
    const compiler = new AdmissionCompiler({
      variables: [
        { name: 'replicas', expression: 'object.spec.replicas' },
        { name: 'doubled', expression: 'variables.replicas * 2' },
        { name: 'broken', expression: 'object.spec.missing' },
        { name: 'uncompiled', expression: 'object.spec.(' },
      ],
    });
    expect(compiler.compile('variables.replicaz', ['dyn']).error).toMatch(/undefined field 'replicaz'/);
    expect(compiler.compile("variables.doubled + 'x'", ['dyn']).error).toMatch(
      /found no matching overload for '_\+_' applied to '\((int|dyn), string\)'/,
    );
    const ev = new AdmissionEvaluation({ attrs: testAttributes() }, compiler.variables);
    expect(await ev.evaluate(compiler.compile('variables.doubled == 6', ['bool']))).toEqual({ kind: 'value', value: true });
    expect(await ev.evaluate(compiler.compile('true || variables.broken', ['bool']))).toEqual({ kind: 'value', value: true });
    expect(await ev.evaluate(compiler.compile('variables.broken == 1', ['bool']))).toEqual({
      kind: 'error',
      message: `expression 'variables.broken == 1' resulted in error: composited variable "broken" fails to evaluate: no such key: missing`,
    });
    const uncompiled = await ev.evaluate(compiler.compile('variables.uncompiled == 1', ['bool']));
    expect(uncompiled.kind === 'error' && uncompiled.message).toMatch(
      /composited variable "uncompiled" fails to compile: compilation failed: ERROR/,
    );
  });

  it('takes every expression from one budget', async () => {
    const compiler = new AdmissionCompiler();
    const costly = compiler.compile('[1,2,3,4,5,6,7,8,9,10].all(x, [1,2,3,4,5,6,7,8,9,10].all(y, x > 0))', ['bool']);
    const ev = new AdmissionEvaluation({ attrs: testAttributes() }, [], 500);
    expect(await ev.evaluate(costly)).toEqual({ kind: 'value', value: true });
    expect(await ev.evaluate(costly)).toEqual({ kind: 'budget', message: BUDGET_EXCEEDED_MESSAGE });
  });
});

describe('reserved words as fields', () => {
  it('reads request.namespace and namespaceObject.metadata.namespace as cel-go does', async () => {
    expect(await value("request.namespace == 'default'")).toEqual({ kind: 'value', value: true });
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', namespace: '' } };
    expect(await value("namespaceObject.metadata.namespace == ''", { namespaceObject: ns })).toEqual({ kind: 'value', value: true });
  });
});
