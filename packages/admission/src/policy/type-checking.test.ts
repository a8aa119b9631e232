import { type CelType, mapType, objectType } from '@kapi/cel';
import { describe, expect, it } from 'vitest';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyStatus } from '../admissionregistration/types.ts';
import { testPolicy } from './test-support/fixtures.ts';
import { type KindSchemas, PolicyTypeCheckingController, typeCheckPolicy, typesToCheck } from './type-checking.ts';

const deploymentType = objectType('apps.v1.Deployment', {
  apiVersion: 'string',
  kind: 'string',
  metadata: objectType('apps.v1.Deployment.metadata', { name: 'string', labels: mapType('string') }),
  spec: objectType('apps.v1.Deployment.spec', { replicas: 'int', paused: 'bool' }),
});
const configMapType = objectType('v1.ConfigMap', { data: mapType('string') });

const schemas: KindSchemas = {
  kindsFor: ({ group, version, resource }) => {
    if (group === 'apps' && version === 'v1' && resource === 'deployments') return [{ group: 'apps', version: 'v1', kind: 'Deployment' }];
    if (group === 'apps' && version === 'v1' && resource === 'statefulsets') return [{ group: 'apps', version: 'v1', kind: 'StatefulSet' }];
    return [];
  },
  typeOf: (gvk): CelType | undefined => {
    if (gvk.kind === 'Deployment') return deploymentType;
    if (gvk.kind === 'ConfigMap' && gvk.group === '' && gvk.version === 'v1') return configMapType;
    return undefined;
  },
};

describe('type checking', () => {
  it('finds the kinds named without wildcards, sorted', () => {
    const policy = testPolicy('p', {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['statefulsets', 'deployments', 'deployments/status', '*'] },
          { apiGroups: ['*'], apiVersions: ['v1'], resources: ['deployments'] },
        ],
      },
    });
    expect(typesToCheck(policy, schemas)).toEqual([
      { group: 'apps', version: 'v1', kind: 'Deployment' },
      { group: 'apps', version: 'v1', kind: 'StatefulSet' },
    ]);
  });

  it("warns about expressions and messageExpressions that do not type-check against the kind's schema", () => {
    const policy = testPolicy('p', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      variables: [{ name: 'r', expression: 'object.spec.replicas' }],
      validations: [
        { expression: 'object.spec.replicas <= int(params.data.max) && variables.r > 0' },
        { expression: 'object.spec.replica > 1', messageExpression: "'got ' + object.spec.replicas" },
        { expression: 'object.spec.paused', messageExpression: "'paused: ' + string(object.spec.paused)" },
      ],
    });
    expect(typeCheckPolicy(policy, schemas)).toEqual([
      {
        fieldRef: 'spec.validations[1].expression',
        warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'\n | object.spec.replica > 1\n | ...........^\n",
      },
      {
        fieldRef: 'spec.validations[1].messageExpression',
        warning: expect.stringMatching(
          /^apps\/v1, Kind=Deployment: ERROR: <input>:1:8: found no matching overload for '_\+_' applied to '\(string, int\)'/,
        ),
      },
    ]);
    // params are typed by the paramKind's schema
    const typo = testPolicy('p', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'params.dat.max == "1"' }],
    });
    expect(typeCheckPolicy(typo, schemas)[0]?.warning).toMatch(/undefined field 'dat'/);
    // a kind without a schema is not checked
    const unknown = testPolicy('p', {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['statefulsets'] }] },
      validations: [{ expression: 'object.spec.nope' }],
    });
    expect(typeCheckPolicy(unknown, schemas)).toEqual([]);
  });

  it('writes observedGeneration and the warnings once per generation', async () => {
    const written: { name: string; status: ValidatingAdmissionPolicyStatus }[] = [];
    const policy: ValidatingAdmissionPolicy = {
      ...testPolicy('p', { validations: [{ expression: 'object.spec.replica > 1' }] }),
    };
    policy.metadata = { name: 'p', uid: 'u1', generation: 1 };
    let policies = [policy];
    const controller = new PolicyTypeCheckingController({
      policies: () => policies,
      schemas,
      writer: {
        writeStatus: async (p, status) => {
          written.push({ name: p.metadata.name ?? '', status });
        },
      },
    });
    await controller.sync();
    await controller.sync();
    expect(written).toHaveLength(1);
    expect(written[0]?.status.observedGeneration).toBe(1);
    expect(written[0]?.status.typeChecking?.expressionWarnings?.[0]?.fieldRef).toBe('spec.validations[0].expression');
    // a fixed policy (generation 2) gets no warnings
    policies = [
      {
        ...testPolicy('p', { validations: [{ expression: 'object.spec.replicas > 1' }] }),
        metadata: { name: 'p', uid: 'u1', generation: 2 },
      },
    ];
    await controller.sync();
    expect(written[1]?.status).toEqual({ observedGeneration: 2, typeChecking: {} });
    // an observed generation is not checked again
    policies = [{ ...policies[0], status: { observedGeneration: 2 } } as ValidatingAdmissionPolicy];
    await controller.sync();
    expect(written).toHaveLength(2);
  });
});
