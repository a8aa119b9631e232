import { type KubeObject, StatusError } from '@kapi/apimachinery';
import type { Authorizer } from '@kapi/authz';
import { describe, expect, it } from 'vitest';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../admissionregistration/types.ts';
import type { AdmissionAttributes } from '../attributes.ts';
import { testAttributes } from '../cel/test-support/attributes.ts';
import { paramsFromObjects } from './param-source.ts';
import { VALIDATION_FAILURE_ANNOTATION, type ValidatingAdmissionPolicyOptions, ValidatingAdmissionPolicyPlugin } from './plugin.ts';
import { testBinding, testNamespaces, testPolicy } from './test-support/fixtures.ts';

interface Setup {
  policies: ValidatingAdmissionPolicy[];
  bindings: ValidatingAdmissionPolicyBinding[];
  params?: KubeObject[];
  options?: Partial<ValidatingAdmissionPolicyOptions>;
}

function plugin(setup: Setup): ValidatingAdmissionPolicyPlugin {
  return new ValidatingAdmissionPolicyPlugin({
    policies: () => setup.policies,
    bindings: () => setup.bindings,
    params: paramsFromObjects(() => setup.params ?? [], { kinds: [{ apiVersion: 'v1', kind: 'ConfigMap' }] }),
    namespaces: testNamespaces({ name: 'default', labels: { env: 'prod' } }, { name: 'dev', labels: { env: 'dev' } }),
    ...setup.options,
  });
}

/** Runs validate and gives what the request saw: the error (if denied), warnings and audit annotations. */
async function run(p: ValidatingAdmissionPolicyPlugin, change: Partial<AdmissionAttributes> = {}) {
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  const attrs = testAttributes({
    warn: (m) => warnings.push(m),
    annotate: (k, v) => {
      annotations[k] = v;
    },
    ...change,
  });
  let error: StatusError | undefined;
  try {
    await p.validate(attrs);
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    error = e;
  }
  return { error, warnings, annotations };
}

function deployment(replicas: number, labels: Record<string, string> = { app: 'web' }): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', labels }, spec: { replicas } };
}

describe('ValidatingAdmissionPolicy', () => {
  it("denies with kube's message, reason Invalid and 422 when a validation fails", async () => {
    const p = plugin({
      policies: [testPolicy('max-replicas', { validations: [{ expression: 'object.spec.replicas <= 5' }] })],
      bindings: [testBinding('max-replicas-binding', { policyName: 'max-replicas' })],
    });
    expect((await run(p, { object: deployment(3) })).error).toBeUndefined();
    const { error } = await run(p, { object: deployment(7) });
    expect(error?.status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: object.spec.replicas <= 5",
      details: {
        name: 'web',
        group: 'apps',
        kind: 'deployments',
        causes: [
          {
            message:
              "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: object.spec.replicas <= 5",
          },
        ],
      },
    });
  });

  it('uses message, messageExpression and reason (with its status code)', async () => {
    const p = plugin({
      policies: [
        testPolicy('p', {
          validations: [
            { expression: 'object.spec.replicas <= 5', message: 'too many', reason: 'Forbidden' },
            {
              expression: 'object.spec.replicas % 2 == 1',
              messageExpression: "'replicas must be odd, got ' + string(object.spec.replicas)",
              message: 'fallback',
              reason: 'RequestEntityTooLarge',
            },
            {
              expression: 'object.spec.replicas != 4',
              messageExpression: "'multi\\nline'",
              message: '  trimmed message  ',
              reason: 'Unauthorized',
            },
          ],
        }),
      ],
      bindings: [testBinding('b', { policyName: 'p' })],
    });
    expect((await run(p, { object: deployment(7) })).error?.status).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect((await run(p, { object: deployment(7) })).error?.message).toMatch(/denied request: too many$/);
    const even = (await run(p, { object: deployment(2) })).error;
    expect(even?.status).toMatchObject({ code: 413, reason: 'RequestEntityTooLarge' });
    expect(even?.message).toMatch(/denied request: replicas must be odd, got 2$/);
    // a multi-line messageExpression result falls back to the (trimmed) message
    const four = (await run(p, { object: deployment(4) })).error;
    expect(four?.status).toMatchObject({ code: 413 });
    expect(four?.message).toMatch(/got 4$/);
    const p2 = plugin({
      policies: [
        testPolicy('p', {
          validations: [{ expression: 'false', messageExpression: "'multi\\nline'", message: '  trimmed  ', reason: 'Unauthorized' }],
        }),
      ],
      bindings: [testBinding('b', { policyName: 'p' })],
    });
    const multi = (await run(p2)).error;
    expect(multi?.status).toMatchObject({ code: 401, reason: 'Unauthorized' });
    expect(multi?.message).toMatch(/denied request: trimmed$/);
    // a messageExpression that fails falls back too
    const p3 = plugin({
      policies: [testPolicy('p', { validations: [{ expression: 'false', messageExpression: 'object.spec.nope' }] })],
      bindings: [testBinding('b', { policyName: 'p' })],
    });
    expect((await run(p3)).error?.message).toMatch(/denied request: failed expression: false$/);
  });

  it('limits by params: a ConfigMap-like param with maxReplicas, by name and by selector', async () => {
    const limits = (name: string, namespace: string, max: string, labels: Record<string, string> = {}): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace, labels },
      data: { maxReplicas: max },
    });
    const policy = testPolicy('replica-limit', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [
        {
          expression: 'object.spec.replicas <= int(params.data.maxReplicas)',
          messageExpression: "'object.spec.replicas must be no greater than ' + params.data.maxReplicas",
        },
      ],
    });
    const setup: Setup = {
      policies: [policy],
      bindings: [
        testBinding('limit-by-name', { policyName: 'replica-limit', paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }),
      ],
      params: [limits('limits', 'default', '3'), limits('limits', 'dev', '10')],
    };
    const p = plugin(setup);
    expect((await run(p, { object: deployment(3) })).error).toBeUndefined();
    expect((await run(p, { object: deployment(4) })).error?.message).toBe(
      "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'limit-by-name' denied request: object.spec.replicas must be no greater than 3",
    );
    // the param is read in the request's namespace
    expect((await run(p, { object: deployment(8), namespace: 'dev' })).error).toBeUndefined();
    // ... or in paramRef.namespace
    setup.bindings = [
      testBinding('b', { policyName: 'replica-limit', paramRef: { name: 'limits', namespace: 'dev', parameterNotFoundAction: 'Deny' } }),
    ];
    expect((await run(p, { object: deployment(8) })).error).toBeUndefined();
    // a selector evaluates every selected param
    setup.params = [limits('a', 'default', '5', { tier: 'x' }), limits('b', 'default', '2', { tier: 'x' }), limits('c', 'default', '1')];
    setup.bindings = [
      testBinding('sel', {
        policyName: 'replica-limit',
        paramRef: { selector: { matchLabels: { tier: 'x' } }, parameterNotFoundAction: 'Allow' },
      }),
    ];
    expect((await run(p, { object: deployment(3) })).error?.message).toMatch(/must be no greater than 2$/);
    expect((await run(p, { object: deployment(2) })).error).toBeUndefined();
  });

  it("applies parameterNotFoundAction and kube's messages for missing params", async () => {
    const policy = testPolicy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'false' }] });
    const setup: Setup = {
      policies: [policy],
      bindings: [testBinding('b', { policyName: 'p', paramRef: { name: 'missing', parameterNotFoundAction: 'Allow' } })],
    };
    const p = plugin(setup);
    expect((await run(p)).error).toBeUndefined();
    setup.bindings = [testBinding('b', { policyName: 'p', paramRef: { name: 'missing', parameterNotFoundAction: 'Deny' } })];
    expect((await run(p)).error?.message).toBe(
      "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
    // a cluster-scoped request with a namespaced param kind and no paramRef.namespace
    const clusterPolicy = testPolicy('p', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], operations: ['CREATE'] }] },
      validations: [{ expression: 'false' }],
    });
    setup.policies = [clusterPolicy];
    const ns = await run(p, {
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      namespace: '',
      name: 'team-a',
      object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
    });
    expect(ns.error?.message).toMatch(
      /failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources$/,
    );
    // an unknown param kind fails the policy
    setup.policies = [
      testPolicy('p', { paramKind: { apiVersion: 'example.com/v1', kind: 'Limits' }, validations: [{ expression: 'false' }] }),
    ];
    expect((await run(p)).error?.message).toBe(
      "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limits'",
    );
    // ... unless the policy ignores failures
    setup.policies = [
      testPolicy('p', {
        failurePolicy: 'Ignore',
        paramKind: { apiVersion: 'example.com/v1', kind: 'Limits' },
        validations: [{ expression: 'false' }],
      }),
    ];
    expect((await run(p)).error).toBeUndefined();
    // a binding without paramRef evaluates with params null
    setup.policies = [
      testPolicy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'params == null' }] }),
    ];
    setup.bindings = [testBinding('b', { policyName: 'p' })];
    expect((await run(p)).error).toBeUndefined();
  });

  it('matches policies by matchConstraints and bindings by matchResources', async () => {
    const setup: Setup = {
      policies: [testPolicy('deny-all', { validations: [{ expression: 'false', message: 'no' }] })],
      bindings: [
        testBinding('prod-only', {
          policyName: 'deny-all',
          matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } },
        }),
      ],
    };
    const p = plugin(setup);
    expect((await run(p)).error?.message).toMatch(/binding 'prod-only' denied request: no$/);
    expect((await run(p, { namespace: 'dev' })).error).toBeUndefined();
    // not a deployment, not matched by the policy
    expect(
      (
        await run(p, {
          resource: { group: 'apps', version: 'v1', resource: 'statefulsets' },
          kind: { group: 'apps', version: 'v1', kind: 'StatefulSet' },
        })
      ).error,
    ).toBeUndefined();
    // DELETE is not in the operations
    expect((await run(p, { operation: 'DELETE', object: null, oldObject: deployment(1) })).error).toBeUndefined();
    // object selector and excluded resource names on the binding
    setup.bindings = [
      testBinding('b', {
        policyName: 'deny-all',
        matchResources: {
          objectSelector: { matchLabels: { app: 'web' } },
          excludeResourceRules: [
            { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['*'], resourceNames: ['allowed'] },
          ],
        },
      }),
    ];
    expect((await run(p)).error).toBeDefined();
    expect((await run(p, { object: deployment(1, { app: 'db' }) })).error).toBeUndefined();
    expect((await run(p, { name: 'allowed' })).error).toBeUndefined();
    // a binding naming another policy, and a policy without bindings, do nothing
    setup.bindings = [testBinding('b', { policyName: 'other' })];
    expect((await run(p)).error).toBeUndefined();
  });

  it('skips validations when a matchCondition is false; an erroring one follows failurePolicy', async () => {
    const setup: Setup = {
      policies: [
        testPolicy('p', {
          matchConditions: [
            { name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" },
            { name: 'has-labels', expression: "has(object.metadata.labels) && object.metadata.labels.app == 'web'" },
          ],
          validations: [{ expression: 'false', message: 'denied' }],
        }),
      ],
      bindings: [testBinding('b', { policyName: 'p' })],
    };
    const p = plugin(setup);
    expect((await run(p)).error?.message).toMatch(/denied$/);
    expect((await run(p, { userInfo: { name: 'system:admin', groups: [] } })).error).toBeUndefined();
    expect((await run(p, { object: deployment(1, { app: 'db' }) })).error).toBeUndefined();
    setup.policies = [
      testPolicy('p', { matchConditions: [{ name: 'bad', expression: 'object.spec.nope == 1' }], validations: [{ expression: 'true' }] }),
    ];
    expect((await run(p)).error?.message).toBe(
      "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.spec.nope == 1' resulted in error: no such key: nope",
    );
    setup.policies = [
      testPolicy('p', {
        failurePolicy: 'Ignore',
        matchConditions: [{ name: 'bad', expression: 'object.spec.nope == 1' }],
        validations: [{ expression: 'false' }],
      }),
    ];
    expect((await run(p)).error).toBeUndefined();
  });

  it('uses variables, composited and lazy', async () => {
    const p = plugin({
      policies: [
        testPolicy('p', {
          variables: [
            { name: 'replicas', expression: 'object.spec.replicas' },
            { name: 'limit', expression: "namespaceObject.metadata.labels.env == 'prod' ? 10 : 2" },
            { name: 'over', expression: 'variables.replicas > variables.limit' },
          ],
          validations: [{ expression: '!variables.over', messageExpression: "'at most ' + string(variables.limit) + ' replicas'" }],
        }),
      ],
      bindings: [testBinding('b', { policyName: 'p' })],
    });
    expect((await run(p, { object: deployment(5) })).error).toBeUndefined();
    expect((await run(p, { object: deployment(11) })).error?.message).toMatch(/denied request: at most 10 replicas$/);
    expect((await run(p, { object: deployment(3), namespace: 'dev' })).error?.message).toMatch(/at most 2 replicas$/);
  });

  it('denies, warns and audits as validationActions say', async () => {
    const setup: Setup = {
      policies: [
        testPolicy('p', { validations: [{ expression: 'true' }, { expression: 'object.spec.replicas < 3', message: 'too many' }] }),
      ],
      bindings: [testBinding('b', { policyName: 'p', validationActions: ['Warn', 'Audit'] })],
    };
    const p = plugin(setup);
    const warned = await run(p);
    expect(warned.error).toBeUndefined();
    expect(warned.warnings).toEqual(["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': too many"]);
    expect(JSON.parse(warned.annotations[VALIDATION_FAILURE_ANNOTATION] as string)).toEqual([
      { message: 'too many', policy: 'p', binding: 'b', expressionIndex: 1, validationActions: ['Warn', 'Audit'] },
    ]);
    expect(Object.keys(warned.annotations[VALIDATION_FAILURE_ANNOTATION] ?? {})).not.toHaveLength(0);
    setup.bindings = [testBinding('b', { policyName: 'p', validationActions: ['Deny', 'Warn'] })];
    const denied = await run(p);
    expect(denied.error?.message).toMatch(/too many$/);
    expect(denied.warnings).toHaveLength(1);
    expect(denied.annotations).toEqual({});
    const passing = await run(p, { object: deployment(1) });
    expect(passing).toEqual({ error: undefined, warnings: [], annotations: {} });
  });

  it('publishes audit annotations as <policy>/<key>, merging distinct values across params', async () => {
    const setup: Setup = {
      policies: [
        testPolicy('p', {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          validations: [{ expression: 'true' }],
          auditAnnotations: [
            { key: 'high-replicas', valueExpression: "object.spec.replicas > int(params.data.max) ? 'over ' + params.data.max : ''" },
            { key: 'user', valueExpression: 'request.userInfo.username' },
          ],
        }),
      ],
      bindings: [testBinding('b', { policyName: 'p', paramRef: { selector: {}, parameterNotFoundAction: 'Deny' } })],
      params: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { max: '1' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'default' }, data: { max: '2' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { max: '9' } },
      ],
    };
    const p = plugin(setup);
    expect((await run(p)).annotations).toEqual({ 'p/high-replicas': 'over 1, over 2', 'p/user': 'alice' });
    // an annotation that fails to evaluate denies under Fail
    setup.policies = [
      testPolicy('p', {
        validations: [{ expression: 'true' }],
        auditAnnotations: [{ key: 'k', valueExpression: 'string(object.spec.nope)' }],
      }),
    ];
    setup.bindings = [testBinding('b', { policyName: 'p' })];
    expect((await run(p)).error?.message).toMatch(
      /denied request: expression 'string\(object.spec.nope\)' resulted in error: no such key: nope$/,
    );
  });

  it('treats compile and runtime errors by failurePolicy', async () => {
    const setup: Setup = {
      policies: [testPolicy('p', { validations: [{ expression: 'object.spec.replicas >' }] })],
      bindings: [testBinding('b', { policyName: 'p' })],
    };
    const p = plugin(setup);
    const { error } = await run(p);
    expect(error?.status.code).toBe(422);
    expect(error?.message).toMatch(/denied request: compilation error: compilation failed: ERROR: <input>:1:/);
    setup.policies = [testPolicy('p', { validations: [{ expression: "object.spec.replicas > 'x'" }] })];
    expect((await run(p)).error?.message).toMatch(/resulted in error: no such overload/);
    setup.policies = [
      testPolicy('p', {
        failurePolicy: 'Ignore',
        validations: [{ expression: 'object.spec.replicas >' }, { expression: 'object.spec.x == 1' }],
      }),
    ];
    expect((await run(p)).error).toBeUndefined();
  });

  it('evaluates integers as 64-bit', async () => {
    const p = plugin({
      policies: [testPolicy('p', { validations: [{ expression: 'object.spec.big + 1 == 9007199254740993' }] })],
      bindings: [testBinding('b', { policyName: 'p' })],
    });
    const big: KubeObject = { ...deployment(1), spec: { big: 9007199254740992 } };
    expect((await run(p, { object: big })).error).toBeUndefined();
  });

  it("answers authorizer checks with the request's user", async () => {
    const authorizer: Authorizer = {
      authorize: async (a) => ({
        decision:
          a.user.name === 'alice' && a.resource === 'deployments' && a.subresource === 'scale' && a.verb === 'update' ? 'Allow' : 'Deny',
        reason: 'by test policy',
      }),
    };
    const p = plugin({
      policies: [
        testPolicy('p', {
          validations: [
            {
              expression: "object.spec.replicas <= 5 || authorizer.requestResource.subresource('scale').check('update').allowed()",
              messageExpression: "'needs scale permission'",
            },
          ],
        }),
      ],
      bindings: [testBinding('b', { policyName: 'p' })],
      options: { authorizer },
    });
    expect((await run(p, { object: deployment(9) })).error).toBeUndefined();
    expect((await run(p, { object: deployment(9), userInfo: { name: 'bob', groups: [] } })).error?.message).toMatch(
      /needs scale permission$/,
    );
  });

  it('sees the object in the version the policy matched (matchPolicy Equivalent)', async () => {
    const p = plugin({
      policies: [
        testPolicy('p', {
          matchConstraints: {
            matchPolicy: 'Equivalent',
            resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1beta1'], resources: ['deployments'], operations: ['CREATE'] }],
          },
          validations: [
            {
              expression:
                "object.apiVersion == 'apps/v1beta1' && request.resource.version == 'v1beta1' && request.requestResource.version == 'v1'",
            },
          ],
        }),
      ],
      bindings: [testBinding('b', { policyName: 'p' })],
    });
    const versions = {
      served: ['v1', 'v1beta1'],
      convert: async (obj: KubeObject, version: string) => ({ ...obj, apiVersion: `apps/${version}` }),
    };
    expect((await run(p, { versions })).error).toBeUndefined();
  });

  it('compiles a policy once per version', async () => {
    const policy = testPolicy('p', { validations: [{ expression: 'object.spec.replicas < 5' }] });
    policy.metadata.resourceVersion = '1';
    const setup: Setup = { policies: [policy], bindings: [testBinding('b', { policyName: 'p' })] };
    const p = plugin(setup);
    expect((await run(p, { object: deployment(7) })).error).toBeDefined();
    // a new version of the policy is compiled again
    setup.policies = [
      { ...testPolicy('p', { validations: [{ expression: 'object.spec.replicas < 10' }] }), metadata: { name: 'p', resourceVersion: '2' } },
    ];
    expect((await run(p, { object: deployment(7) })).error).toBeUndefined();
  });

  it('asks each authorization check once per request, across policies', async () => {
    let asked = 0;
    const authorizer: Authorizer = {
      authorize: async () => {
        asked++;
        return { decision: 'Allow', reason: '' };
      },
    };
    const check = "authorizer.group('').resource('configmaps').namespace('default').check('list').allowed()";
    const p = plugin({
      policies: [testPolicy('a', { validations: [{ expression: check }] }), testPolicy('b', { validations: [{ expression: check }] })],
      bindings: [testBinding('a', { policyName: 'a' }), testBinding('b', { policyName: 'b' })],
      options: { authorizer },
    });
    expect((await run(p)).error).toBeUndefined();
    expect(asked).toBe(1);
  });

  it("records kube's policy check metrics", async () => {
    const checks: unknown[][] = [];
    const metrics = {
      observeStep: () => {},
      observeController: () => {},
      observeWebhook: () => {},
      webhookRequest: () => {},
      webhookRejection: () => {},
      webhookFailOpen: () => {},
      policyCheck: (...args: unknown[]) => {
        checks.push(args);
      },
    };
    const p = plugin({
      policies: [
        testPolicy('deny', { validations: [{ expression: 'false' }] }),
        testPolicy('broken', { failurePolicy: 'Ignore', validations: [{ expression: 'object.spec.nope == 1' }] }),
      ],
      bindings: [
        testBinding('d', { policyName: 'deny', validationActions: ['Warn', 'Audit'] }),
        testBinding('x', { policyName: 'broken' }),
      ],
      options: { metrics },
    });
    await run(p);
    expect(checks.map(([policy, binding, action, , errorType]) => [policy, binding, action, errorType])).toEqual([
      ['deny', 'd', 'warn', 'invalid_error'],
      ['deny', 'd', 'audit', 'invalid_error'],
      ['broken', 'x', 'allow', 'invalid_error'],
    ]);
  });

  it('leaves policies, bindings and the review kinds alone', async () => {
    const p = plugin({
      policies: [
        testPolicy('deny-all', {
          matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['*'] }] },
          validations: [{ expression: 'false' }],
        }),
      ],
      bindings: [testBinding('b', { policyName: 'deny-all' })],
    });
    expect((await run(p)).error).toBeDefined();
    const on = (group: string, resource: string) =>
      run(p, { resource: { group, version: 'v1', resource }, kind: { group, version: 'v1', kind: 'X' }, namespace: '' });
    expect((await on('admissionregistration.k8s.io', 'validatingadmissionpolicies')).error).toBeUndefined();
    expect((await on('admissionregistration.k8s.io', 'validatingadmissionpolicybindings')).error).toBeUndefined();
    expect((await on('authorization.k8s.io', 'subjectaccessreviews')).error).toBeUndefined();
    expect((await on('admissionregistration.k8s.io', 'validatingwebhookconfigurations')).error).toBeDefined();
  });

  it('sees oldObject on UPDATE and DELETE', async () => {
    const p = plugin({
      policies: [
        testPolicy('no-scale-down', {
          matchConstraints: {
            resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['UPDATE', 'DELETE'] }],
          },
          validations: [
            {
              expression: "request.operation == 'DELETE' ? oldObject.spec.replicas == 0 : object.spec.replicas >= oldObject.spec.replicas",
              messageExpression:
                "request.operation == 'DELETE' ? 'scale to 0 first' : 'cannot scale down from ' + string(oldObject.spec.replicas)",
            },
          ],
        }),
      ],
      bindings: [testBinding('b', { policyName: 'no-scale-down' })],
    });
    expect((await run(p, { operation: 'UPDATE', object: deployment(4), oldObject: deployment(3) })).error).toBeUndefined();
    expect((await run(p, { operation: 'UPDATE', object: deployment(2), oldObject: deployment(3) })).error?.message).toMatch(
      /cannot scale down from 3$/,
    );
    expect((await run(p, { operation: 'DELETE', object: null, oldObject: deployment(3) })).error?.message).toMatch(/scale to 0 first$/);
    expect((await run(p, { operation: 'DELETE', object: null, oldObject: deployment(0) })).error).toBeUndefined();
  });

  it('refuses paramRef.namespace for a cluster-scoped param kind and reads cluster-scoped params', async () => {
    const limits: KubeObject = { apiVersion: 'example.com/v1', kind: 'Limits', metadata: { name: 'global' }, spec: { max: 4 } };
    const setup: Setup = {
      policies: [
        testPolicy('p', {
          paramKind: { apiVersion: 'example.com/v1', kind: 'Limits' },
          validations: [{ expression: 'object.spec.replicas <= params.spec.max' }],
        }),
      ],
      bindings: [
        testBinding('b', { policyName: 'p', paramRef: { name: 'global', namespace: 'default', parameterNotFoundAction: 'Deny' } }),
      ],
    };
    const p = new ValidatingAdmissionPolicyPlugin({
      policies: () => setup.policies,
      bindings: () => setup.bindings,
      params: paramsFromObjects(() => [limits], { clusterScoped: ['example.com/v1/Limits'] }),
      namespaces: testNamespaces({ name: 'default' }),
    });
    expect((await run(p)).error?.message).toMatch(
      /failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`$/,
    );
    setup.bindings = [testBinding('b', { policyName: 'p', paramRef: { name: 'global', parameterNotFoundAction: 'Deny' } })];
    expect((await run(p, { object: deployment(4) })).error).toBeUndefined();
    expect((await run(p, { object: deployment(5) })).error?.message).toMatch(/failed expression: object.spec.replicas <= params.spec.max$/);
  });

  it('gives every policy the same request, object and namespaceObject (converted once per request)', async () => {
    const expression =
      "request.name == 'web' && request.namespace == 'default' && namespaceObject.metadata.labels.env == 'prod' && object.spec.replicas == 3";
    const p = plugin({
      policies: ['a', 'b', 'c'].map((n) => testPolicy(n, { validations: [{ expression, message: `${n} failed` }] })),
      bindings: ['a', 'b', 'c'].map((n) => testBinding(n, { policyName: n })),
    });
    expect((await run(p, { object: deployment(3) })).error).toBeUndefined();
    expect((await run(p, { object: deployment(4) })).error?.message).toMatch(/a failed$/);
  });
});
