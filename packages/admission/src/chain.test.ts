import { isInternalError, newInvalid, StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { AdmissionAttributes, Operation } from './attributes.ts';
import { AdmissionChain } from './chain.ts';
import { admissionPlugin, denyAll } from './plugin-factory.ts';

function attrs(operation: Operation, name = 'w1'): AdmissionAttributes {
  return {
    operation,
    kind: { group: 'example.kapi.dev', version: 'v1', kind: 'Widget' },
    resource: { group: 'example.kapi.dev', version: 'v1', resource: 'widgets' },
    subresource: '',
    namespace: 'default',
    name,
    object: operation === 'DELETE' ? null : { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name } },
    oldObject: null,
    dryRun: false,
    userInfo: { name: 'alice', groups: ['system:authenticated'] },
  };
}

describe('AdmissionChain', () => {
  it('admit runs the mutating plugins that handle the operation, in order; validate the validating ones', async () => {
    const seen: string[] = [];
    const chain = new AdmissionChain([
      admissionPlugin({ name: 'A', admit: () => void seen.push('admit A'), validate: () => void seen.push('validate A') }),
      admissionPlugin({ name: 'B', operations: ['UPDATE'], admit: () => void seen.push('admit B') }),
      admissionPlugin({ name: 'C', operations: ['CREATE'], validate: () => void seen.push('validate C') }),
      admissionPlugin({
        name: 'Labels',
        operations: ['CREATE'],
        admit: (a) => {
          if (a.object) a.object.metadata.labels = { team: 'x' };
        },
      }),
    ]);
    const a = attrs('CREATE');
    await chain.admit(a);
    await chain.validate(a);
    expect(seen).toEqual(['admit A', 'validate A', 'validate C']);
    expect(a.object?.metadata.labels).toEqual({ team: 'x' });
    expect(chain.handles('CREATE')).toBe(true);
    expect(new AdmissionChain([admissionPlugin({ name: 'x', operations: ['DELETE'] })]).handles('CREATE')).toBe(false);
  });

  it('the first rejection stops the chain; a StatusError reaches the caller as is', async () => {
    const seen: string[] = [];
    const invalid = newInvalid({ group: 'example.kapi.dev', kind: 'Widget' }, 'w1', []);
    const chain = new AdmissionChain([
      admissionPlugin({
        name: 'Reject',
        validate: () => {
          throw invalid;
        },
      }),
      admissionPlugin({ name: 'After', validate: () => void seen.push('after') }),
    ]);
    await expect(chain.validate(attrs('UPDATE'))).rejects.toBe(invalid);
    expect(seen).toEqual([]);
  });

  it('any other error becomes a 500 that names the plugin', async () => {
    const chain = new AdmissionChain([
      admissionPlugin({
        name: 'Buggy',
        admit: () => {
          throw new TypeError('x is undefined');
        },
      }),
    ]);
    const err = await chain.admit(attrs('CREATE')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect(isInternalError(err)).toBe(true);
    expect((err as StatusError).code).toBe(500);
    expect((err as StatusError).message).toBe('Internal error occurred: admission plugin "Buggy" failed: x is undefined');
  });

  it('denyAll rejects with kube’s AlwaysDeny Forbidden, in admit and validate, for the operations it handles', async () => {
    const chain = new AdmissionChain([denyAll('NoDeletes', ['DELETE'])]);
    await chain.admit(attrs('CREATE'));
    const err = (await chain.validate(attrs('DELETE')).catch((e: unknown) => e)) as StatusError;
    expect(err.code).toBe(403);
    expect(err.status).toMatchObject({
      reason: 'Forbidden',
      message: 'widgets.example.kapi.dev "w1" is forbidden: admission control is denying all modifications',
      details: { name: 'w1', group: 'example.kapi.dev', kind: 'widgets' },
    });
    await expect(new AdmissionChain([denyAll()]).admit(attrs('CREATE', ''))).rejects.toThrow(
      'widgets.example.kapi.dev "Unknown" is forbidden: admission control is denying all modifications',
    );
  });

  it('chains nest', async () => {
    const seen: string[] = [];
    const inner = new AdmissionChain([admissionPlugin({ name: 'in', admit: () => void seen.push('in') })], 'inner');
    await new AdmissionChain([inner, admissionPlugin({ name: 'out', admit: () => void seen.push('out') })]).admit(attrs('CREATE'));
    expect(seen).toEqual(['in', 'out']);
  });
});
