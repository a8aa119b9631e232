import { FakeClock, type KubeObject, StatusError } from '@kapi/apimachinery';
import { Store, toTable } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from './types.ts';
import {
  ValidatingAdmissionPolicyBindingResource,
  ValidatingAdmissionPolicyResource,
  validatingAdmissionPolicyResource,
} from './validating-admission-policy-resources.ts';

// Cases after pkg/apis/admissionregistration/validation/validation_test.go (TestValidateValidatingAdmissionPolicy*).

let memory: MemoryStorage;
let policies: Store<ValidatingAdmissionPolicy>;
let bindings: Store<ValidatingAdmissionPolicyBinding>;
const clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
beforeEach(() => {
  memory = new MemoryStorage({ compaction: false });
  policies = new Store(ValidatingAdmissionPolicyResource, { storage: memory, clock });
  bindings = new Store(ValidatingAdmissionPolicyBindingResource, { storage: memory, clock });
});
afterEach(() => memory.close());

const ctx = {};
const NAME = 'replicas.example.com';
const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }];

const policy = (spec: Record<string, unknown>, name = 'replicas.example.com') =>
  ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: rules }, validations: [{ expression: 'object.spec.replicas <= 5' }], ...spec },
  }) as ValidatingAdmissionPolicy;

const binding = (spec: Record<string, unknown>, name = 'replicas-binding') =>
  ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName: 'replicas.example.com', validationActions: ['Deny'], ...spec },
  }) as ValidatingAdmissionPolicyBinding;

async function causes(p: Promise<unknown>): Promise<string[]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  expect((err as StatusError).code).toBe(422);
  return ((err as StatusError).status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}

describe('ValidatingAdmissionPolicy', () => {
  it('is cluster-scoped with a status subresource', () => {
    expect(ValidatingAdmissionPolicyResource.groupResource).toEqual({
      group: 'admissionregistration.k8s.io',
      resource: 'validatingadmissionpolicies',
    });
    expect(ValidatingAdmissionPolicyResource.namespaced).toBe(false);
    expect(ValidatingAdmissionPolicyResource.subresources.status).toBe(true);
  });

  it('stores kube defaults and an empty status', async () => {
    const { object } = await policies.create(ctx, { ...policy({}), status: { observedGeneration: 9 } });
    expect(object.metadata.generation).toBe(1);
    expect(object.spec).toEqual({
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [{ ...rules[0], scope: '*' }],
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
      },
      validations: [{ expression: 'object.spec.replicas <= 5' }],
    });
    expect(object.status).toEqual({});
  });

  it('keeps status on a spec update and bumps generation; the status subresource writes status only', async () => {
    const { object } = await policies.create(ctx, policy({}));
    const st = await policies.update(
      ctx,
      NAME,
      { ...object, status: { observedGeneration: 1, typeChecking: {} } },
      { subresource: 'status' },
    );
    expect(st.object.status).toEqual({ observedGeneration: 1, typeChecking: {} });
    expect(st.object.metadata.generation).toBe(1);
    const up = await policies.update(ctx, NAME, {
      ...st.object,
      spec: { ...st.object.spec, validations: [{ expression: 'true' }] },
      status: {},
    });
    expect(up.object.metadata.generation).toBe(2);
    expect(up.object.status).toEqual({ observedGeneration: 1, typeChecking: {} });
  });

  it('validates the status subresource alone', async () => {
    const { object } = await policies.create(ctx, policy({}));
    const bad = {
      ...object,
      status: {
        typeChecking: { expressionWarnings: [{ fieldRef: '', warning: '' }] },
        conditions: [{ type: 'Ready', status: 'Maybe', reason: '', message: '', lastTransitionTime: '' }],
      },
    };
    expect(await causes(policies.update(ctx, NAME, bad, { subresource: 'status' }))).toEqual([
      'status.typeChecking.expressionWarnings[0].warning: Required value',
      'status.typeChecking.expressionWarnings[0].fieldRef: Required value',
      'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'status.conditions[0].lastTransitionTime: Required value: must be set',
      'status.conditions[0].reason: Required value: must be set',
    ]);
    // A time Go could not decode is a 400, as kube's decoder answers.
    const garbage = {
      ...object,
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: '', lastTransitionTime: 'garbage' }] },
    };
    const err = (await policies.update(ctx, NAME, garbage, { subresource: 'status' }).catch((e: unknown) => e)) as StatusError;
    expect(err.code).toBe(400);
    expect(err.message).toBe(
      'ValidatingAdmissionPolicy in version "v1" cannot be handled as a ValidatingAdmissionPolicy: parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"',
    );
  });

  it('requires matchConstraints with resourceRules, and validations or auditAnnotations', async () => {
    expect(await causes(policies.create(ctx, policy({ matchConstraints: undefined, validations: undefined })))).toEqual([
      'spec.matchConstraints: Required value',
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
      'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
    ]);
    expect(await causes(policies.create(ctx, policy({ matchConstraints: {} })))).toEqual([
      'spec.matchConstraints.resourceRules: Required value',
    ]);
  });

  it("refuses a spec of the wrong type with the schema's words first, not as an empty spec", async () => {
    for (const [store, body] of [
      [policies, { ...policy({}), spec: 'x' }],
      [bindings, { ...binding({}), spec: ['x'] }],
    ] as const) {
      const err = await (store as Store).create(ctx, body as KubeObject).catch((e: unknown) => e as StatusError);
      expect((err as StatusError).code).toBe(422);
      expect((err as StatusError).status.details?.causes?.[0]).toMatchObject({ field: 'spec', reason: 'FieldValueTypeInvalid' });
    }
  });

  it('checks validations, failurePolicy, paramKind and match rules', async () => {
    expect(
      await causes(
        policies.create(
          ctx,
          policy({
            failurePolicy: 'Sometimes',
            paramKind: { apiVersion: 'a/b/c', kind: 'Bad_Kind' },
            matchConstraints: {
              matchPolicy: 'Fuzzy',
              resourceRules: [{ ...rules[0], resourceNames: ['a/b', 'x', 'x'] }],
              excludeResourceRules: [{ operations: [] }],
            },
            validations: [
              { expression: ' ' },
              { expression: 'true', message: ' ', messageExpression: ' ', reason: 'NotFound' },
              { expression: 'true', message: 'two\nlines' },
            ],
          }),
        ),
      ),
    ).toEqual([
      'spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
      'spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      `spec.paramKind.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      'spec.matchConstraints.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"',
      `spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "a/b": may not contain '/'`,
      'spec.matchConstraints.resourceRules[0].resourceNames[2]: Duplicate value: "x"',
      'spec.matchConstraints.excludeResourceRules[0].operations: Required value',
      'spec.matchConstraints.excludeResourceRules[0].apiGroups: Required value',
      'spec.matchConstraints.excludeResourceRules[0].apiVersions: Required value',
      'spec.matchConstraints.excludeResourceRules[0].resources: Required value',
      'spec.validations[0].expression: Required value: expression is not specified',
      'spec.validations[1].messageExpression: Invalid value: " ": must be non-empty if specified',
      'spec.validations[1].message: Invalid value: " ": message must be non-empty if specified',
      'spec.validations[1].reason: Unsupported value: "NotFound": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
      'spec.validations[2].message: Invalid value: "two\\nlines": message must not contain line breaks',
    ]);
  });

  it('checks auditAnnotations, variables and matchConditions', async () => {
    expect(
      await causes(
        policies.create(
          ctx,
          policy({
            validations: undefined,
            auditAnnotations: [
              { key: 'good', valueExpression: "'x'" },
              { key: 'good', valueExpression: ' ' },
              { key: 'bad key', valueExpression: "'y'" },
            ],
            variables: [
              { name: 'in', expression: 'true' },
              { name: '', expression: '' },
            ],
            matchConditions: [{ name: 'Bad Name', expression: 'true' }],
          }),
        ),
      ),
    ).toEqual([
      `spec.matchConditions[0].name: Invalid value: "Bad Name": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier',
      'spec.variables[1].name: Required value: name is not specified',
      'spec.variables[1].expression: Required value: expression is not specified',
      'spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified',
      'spec.auditAnnotations[1].key: Duplicate value: "good"',
      `spec.auditAnnotations[2].key: Invalid value: "replicas.example.com/bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
  });

  it('compiles CEL with an ExpressionChecker, stored expressions in the stored environment', async () => {
    const seen: string[] = [];
    const def = validatingAdmissionPolicyResource((expression, check) => {
      seen.push(`${check.kind}:${expression}:params=${check.params}:stored=${check.stored}:vars=${check.variables?.length ?? '-'}`);
      return expression.includes('!!') ? { type: 'Invalid', detail: 'compilation failed: ERROR: <input>:1:1: Syntax error' } : undefined;
    });
    const store = new Store(def, { storage: memory, clock });
    const p = policy({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      variables: [{ name: 'r', expression: 'object.spec.replicas' }],
      validations: [{ expression: 'variables.r < 5', messageExpression: "'too many'" }],
      matchConditions: [{ name: 'm', expression: 'true' }],
    });
    const { object } = await store.create(ctx, p);
    expect(seen).toEqual([
      'matchCondition:true:params=true:stored=false:vars=-',
      'variable:object.spec.replicas:params=true:stored=false:vars=0',
      'validation:variables.r < 5:params=true:stored=false:vars=1',
      "messageExpression:'too many':params=true:stored=false:vars=1",
    ]);
    seen.length = 0;
    const next = { ...object, spec: { ...object.spec, validations: [{ expression: 'variables.r < 5' }, { expression: '!!' }] } };
    expect(await causes(store.update(ctx, NAME, next))).toEqual([
      'spec.validations[1].expression: Invalid value: "!!": compilation failed: ERROR: <input>:1:1: Syntax error',
    ]);
    // unchanged matchConditions are not compiled again; a kept validation compiles as stored
    expect(seen).toEqual([
      'variable:object.spec.replicas:params=true:stored=false:vars=0',
      'validation:variables.r < 5:params=true:stored=true:vars=1',
      'validation:!!:params=true:stored=false:vars=1',
    ]);
  });

  it('prints Validations and ParamKind columns', async () => {
    const { object } = await policies.create(ctx, policy({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }));
    const table = toTable(ValidatingAdmissionPolicyResource, object, { clock });
    expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Validations', 'ParamKind', 'Age']);
    expect(table.rows[0]?.cells.slice(0, 3)).toEqual(['replicas.example.com', 1, 'v1/ConfigMap']);
  });
});

describe('ValidatingAdmissionPolicyBinding', () => {
  it('drops empty omitempty strings, as Go writes the object', async () => {
    const { object } = await bindings.create(ctx, binding({ paramRef: { name: 'p', namespace: '', parameterNotFoundAction: 'Deny' } }));
    expect(object.spec?.paramRef).toEqual({ name: 'p', parameterNotFoundAction: 'Deny' });
    const p = await policies.create(ctx, policy({ validations: [{ expression: 'true', message: '', messageExpression: '' }] }));
    expect(p.object.spec?.validations).toEqual([{ expression: 'true' }]);
  });

  it('stores defaults of matchResources', async () => {
    const { object } = await bindings.create(ctx, binding({ matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } }));
    expect(object.metadata.generation).toBe(1);
    expect(object.spec?.matchResources).toEqual({
      namespaceSelector: { matchLabels: { env: 'prod' } },
      objectSelector: {},
      matchPolicy: 'Equivalent',
    });
  });

  it('requires policyName and validationActions', async () => {
    expect(await causes(bindings.create(ctx, binding({ policyName: undefined, validationActions: undefined })))).toEqual([
      'spec.policyName: Required value',
      'spec.validationActions: Required value: at least one validation action is required',
    ]);
  });

  it('checks validationActions: known, unique, not both Deny and Warn', async () => {
    expect(await causes(bindings.create(ctx, binding({ validationActions: ['Deny', 'Warn', 'Log'] })))).toEqual([
      'spec.validationActions[2]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"',
      'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Log"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]);
    // duplicates: the set list's own check first, then kube's
    expect(await causes(bindings.create(ctx, binding({ validationActions: ['Audit', 'Audit'] })))).toEqual([
      'spec.validationActions[1]: Duplicate value: "Audit"',
      'spec.validationActions[1]: Duplicate value: "Audit"',
    ]);
    await bindings.create(ctx, binding({ validationActions: ['Warn', 'Audit'] }));
  });

  it('checks paramRef and matchResources (at kube\'s "matchResouces" path)', async () => {
    expect(
      await causes(
        bindings.create(
          ctx,
          binding({
            policyName: 'Bad_Name',
            paramRef: { name: 'a/b', selector: {}, parameterNotFoundAction: 'Ignore' },
            matchResources: { matchPolicy: 'Fuzzy' },
          }),
        ),
      ),
    ).toEqual([
      `spec.policyName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `spec.paramRef.name: Invalid value: "a/b": may not contain '/'`,
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"',
      'spec.matchResouces.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"',
    ]);
    expect(await causes(bindings.create(ctx, binding({ paramRef: {} })))).toEqual([
      'spec.paramRef: Required value: one of name or selector must be specified',
      'spec.paramRef.parameterNotFoundAction: Required value',
    ]);
  });

  it('prints PolicyName and ParamRef columns', async () => {
    const { object } = await bindings.create(
      ctx,
      binding({ paramRef: { name: 'limits', namespace: 'ns', parameterNotFoundAction: 'Deny' } }),
    );
    const table = toTable(ValidatingAdmissionPolicyBindingResource, object, { clock });
    expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'PolicyName', 'ParamRef', 'Age']);
    expect(table.rows[0]?.cells.slice(0, 3)).toEqual(['replicas-binding', 'replicas.example.com', 'ns/limits']);
    // A selector prints as kube's printer prints it: metav1.LabelSelector's generated String().
    const bySelector = await bindings.create(ctx, {
      ...binding({
        paramRef: {
          selector: { matchLabels: { tier: 'gold', app: 'x' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['a', 'b'] }] },
          parameterNotFoundAction: 'Deny',
        },
      }),
      metadata: { name: 'by-selector' },
    });
    expect(toTable(ValidatingAdmissionPolicyBindingResource, bySelector.object, { clock }).rows[0]?.cells[2]).toBe(
      '&LabelSelector{MatchLabels:map[string]string{app: x,tier: gold,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,Operator:In,Values:[a b],},},}',
    );
  });
});

describe('CEL compiled on write (admissionExpressionChecker)', () => {
  it('refuses expressions that do not compile or have the wrong type, in kube words', async () => {
    const errs = await causes(
      policies.create(
        ctx,
        policy({
          variables: [{ name: 'r', expression: 'object.spec.replicas' }],
          validations: [
            { expression: 'variables.r <= 5', messageExpression: "'replicas: ' + string(variables.r)" },
            { expression: 'object.spec.replicas <' },
            { expression: '1 + 1' },
            { expression: 'true', messageExpression: '42' },
            { expression: 'params.max > 1' },
          ],
          auditAnnotations: [{ key: 'k', valueExpression: 'true' }],
          matchConditions: [{ name: 'm', expression: 'authorizer.group("").resource("pods").check("get").allowed()' }],
        }),
      ),
    );
    expect(errs.map((e) => /^.*?Invalid value: "(?:[^"\\]|\\.)*":/.exec(e)?.[0])).toEqual([
      'spec.validations[1].expression: Invalid value: "object.spec.replicas <":',
      'spec.validations[2].expression: Invalid value: "1 + 1":',
      'spec.validations[3].messageExpression: Invalid value: "42":',
      'spec.validations[4].expression: Invalid value: "params.max > 1":',
      'spec.auditAnnotations[0].valueExpression: Invalid value: "true":',
    ]);
    expect(errs[0]).toContain('compilation failed: ERROR: <input>:1:');
    expect(errs[1]).toContain('must evaluate to bool');
    expect(errs[2]).toContain('must evaluate to string');
    expect(errs[3]).toContain("undeclared reference to 'params'");
    expect(errs[4]).toContain('must evaluate to one of');
  });

  it('declares params with a paramKind, and variables in order', async () => {
    await policies.create(
      ctx,
      policy({
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        variables: [
          { name: 'max', expression: 'int(params.data.max)' },
          { name: 'over', expression: 'object.spec.replicas > variables.max' },
        ],
        validations: [{ expression: '!variables.over', messageExpression: "'at most ' + string(variables.max)" }],
      }),
    );
    expect(
      await causes(
        policies.create(
          ctx,
          policy(
            {
              variables: [
                { name: 'a', expression: 'variables.b' },
                { name: 'b', expression: '1' },
              ],
            },
            'two',
          ),
        ),
      ),
    ).toHaveLength(1);
  });

  it('compiles webhook matchConditions', async () => {
    const { ValidatingWebhookConfigurationResource } = await import('./webhook-configuration-resources.ts');
    const store = new Store(ValidatingWebhookConfigurationResource, { storage: memory, clock });
    const cfg = (expression: string, name: string) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name },
      webhooks: [
        {
          name: 'h.example.com',
          clientConfig: { url: 'https://h' },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          matchConditions: [{ name: 'c', expression }],
        },
      ],
    });
    await store.create(ctx, cfg("request.operation == 'CREATE' && object.metadata.name != 'skip'", 'ok'));
    const errs = await causes(store.create(ctx, cfg('params.x', 'bad')));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "params.x": compilation failed: /);
  });
});
