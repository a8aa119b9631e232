import type { Authorizer } from '@kapi/authz';
import { describe, expect, it } from 'vitest';
import { compileMatchConditions } from './match-conditions.ts';
import { testAttributes } from './test-support/attributes.ts';

describe('compileMatchConditions', () => {
  it('matches when every condition is true; the first false one names the failure', async () => {
    const conditions = compileMatchConditions([
      { name: 'is-create', expression: "request.operation == 'CREATE'" },
      { name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" },
    ]);
    expect(conditions.errors).toEqual([]);
    expect(await conditions.match(testAttributes())).toEqual({ matches: true });
    expect(await conditions.match(testAttributes({ userInfo: { name: 'system:admin', groups: [] } }))).toEqual({
      matches: false,
      failedCondition: 'not-system',
    });
  });

  it('a false condition wins over an error; otherwise the error is returned', async () => {
    const conditions = compileMatchConditions([
      { name: 'broken', expression: 'object.spec.missing == 1' },
      { name: 'labelled', expression: "object.metadata.labels.app == 'db'" },
    ]);
    expect(await conditions.match(testAttributes())).toEqual({ matches: false, failedCondition: 'labelled' });
    const errored = await conditions.match(
      testAttributes({ object: { apiVersion: 'v1', kind: 'X', metadata: { name: 'x', labels: { app: 'db' } }, spec: {} } }),
    );
    expect(errored.matches).toBe(false);
    expect(errored.error?.message).toBe("expression 'object.spec.missing == 1' resulted in error: no such key: missing");
  });

  it("reports compile errors in kube's words and treats them as errors at run time", async () => {
    const conditions = compileMatchConditions([{ name: 'bad', expression: 'object.metadata.name +' }]);
    expect(conditions.errors).toHaveLength(1);
    expect(conditions.errors[0]).toMatch(/^compilation failed: ERROR: <input>:1:/);
    const result = await conditions.match(testAttributes());
    expect(result.error?.message).toMatch(/^compilation error: compilation failed: ERROR/);
    expect(compileMatchConditions([{ name: 'n', expression: "'x'" }]).errors).toEqual(['must evaluate to bool but got string']);
  });

  it('uses params, namespaceObject and the authorizer', async () => {
    const authorizer: Authorizer = {
      authorize: async (a) => ({ decision: a.user.groups.includes('devs') && a.verb === 'approve' ? 'Allow' : 'NoOpinion', reason: '' }),
    };
    const conditions = compileMatchConditions(
      [
        { name: 'param', expression: 'object.spec.replicas > int(params.min)' },
        { name: 'ns', expression: "namespaceObject.metadata.name == 'default'" },
        { name: 'authz', expression: "authorizer.group('example.com').resource('approvals').check('approve').allowed()" },
      ],
      { params: true, authorizer },
    );
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } };
    expect(await conditions.match(testAttributes(), { params: { min: 2 }, namespaceObject: ns })).toEqual({ matches: true });
    expect(await conditions.match(testAttributes(), { params: { min: 5 }, namespaceObject: ns })).toEqual({
      matches: false,
      failedCondition: 'param',
    });
    expect(
      await conditions.match(testAttributes({ userInfo: { name: 'bob', groups: [] } }), { params: { min: 2 }, namespaceObject: ns }),
    ).toEqual({ matches: false, failedCondition: 'authz' });
  });
});
