import { isInternalError, newInvalid, StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { AdmissionAttributes, Operation } from './attributes.ts';
import { AdmissionChain } from './chain.ts';
import type { AdmissionMetrics } from './metrics.ts';
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

  it('reinvocation: a plugin that asks for it makes every mutating plugin run once more, with isReinvoke true and per-plugin state kept', async () => {
    const seen: string[] = [];
    // "Defaulter" runs first; "Labeler" runs after it and changes the object, so Defaulter wants to see the result.
    const chain = new AdmissionChain([
      admissionPlugin({
        name: 'Defaulter',
        admit: (a) => {
          const r = a.reinvocation;
          seen.push(`Defaulter reinvoke=${r?.isReinvoke()} labels=${JSON.stringify(a.object?.metadata.labels ?? {})}`);
          r?.setValue('Defaulter', ((r.value('Defaulter') as number | undefined) ?? 0) + 1);
        },
      }),
      admissionPlugin({
        name: 'Labeler',
        admit: (a) => {
          seen.push(`Labeler reinvoke=${a.reinvocation?.isReinvoke()}`);
          if (a.object && !a.object.metadata.labels) {
            a.object.metadata.labels = { team: 'x' };
            a.reinvocation?.setShouldReinvoke();
          }
        },
      }),
      admissionPlugin({
        name: 'Check',
        validate: (a) => void seen.push(`validate reinvocation=${a.reinvocation === undefined ? 'none' : 'set'}`),
      }),
    ]);
    const a = attrs('CREATE');
    await chain.admit(a);
    await chain.validate(a);
    expect(seen).toEqual([
      'Defaulter reinvoke=false labels={}',
      'Labeler reinvoke=false',
      'Defaulter reinvoke=true labels={"team":"x"}',
      'Labeler reinvoke=true',
      'validate reinvocation=none',
    ]);
    // The caller's attributes carry the mutated object; the context was the chain's, not the caller's.
    expect(a.object?.metadata.labels).toEqual({ team: 'x' });
    expect(a.reinvocation).toBeUndefined();
  });

  it('reinvocation happens once: a request for a third pass is ignored; no request, no second pass', async () => {
    let calls = 0;
    const always = admissionPlugin({
      name: 'Always',
      admit: (a) => {
        calls++;
        a.reinvocation?.setShouldReinvoke();
      },
    });
    await new AdmissionChain([always]).admit(attrs('CREATE'));
    expect(calls).toBe(2);
    calls = 0;
    await new AdmissionChain([admissionPlugin({ name: 'Quiet', admit: () => void calls++ })]).admit(attrs('CREATE'));
    expect(calls).toBe(1);
  });

  it('a nested chain leaves the second pass to the outermost one', async () => {
    let innerCalls = 0;
    const inner = new AdmissionChain(
      [
        admissionPlugin({
          name: 'InnerAsks',
          admit: (a) => {
            innerCalls++;
            if (!a.reinvocation?.isReinvoke()) a.reinvocation?.setShouldReinvoke();
          },
        }),
      ],
      'inner',
    );
    let outerCalls = 0;
    await new AdmissionChain([inner, admissionPlugin({ name: 'Outer', admit: () => void outerCalls++ })]).admit(attrs('CREATE'));
    expect([innerCalls, outerCalls]).toEqual([2, 2]);
  });

  it('a rejection in the first pass stops admission: no second pass', async () => {
    let calls = 0;
    const chain = new AdmissionChain([
      admissionPlugin({
        name: 'Asks',
        admit: (a) => {
          calls++;
          a.reinvocation?.setShouldReinvoke();
        },
      }),
      denyAll('No', ['CREATE']),
    ]);
    await expect(chain.admit(attrs('CREATE'))).rejects.toThrow('admission control is denying all modifications');
    expect(calls).toBe(1);
  });

  it('metrics: one step observation per phase (both passes together), one controller observation per plugin call, rejected as it ended', async () => {
    const steps: string[] = [];
    const controllers: string[] = [];
    const metrics: AdmissionMetrics = {
      observeStep: (type, op, rejected, seconds) => {
        expect(seconds).toBeGreaterThanOrEqual(0);
        steps.push(`${type} ${op} ${rejected}`);
      },
      observeController: (name, type, op, rejected, seconds) => {
        expect(seconds).toBeGreaterThanOrEqual(0);
        controllers.push(`${name} ${type} ${op} ${rejected}`);
      },
      observeWebhook: () => {},
      webhookRequest: () => {},
      webhookRejection: () => {},
      webhookFailOpen: () => {},
      policyCheck: () => {},
    };
    const chain = new AdmissionChain(
      [
        admissionPlugin({
          name: 'Asks',
          operations: ['CREATE'],
          admit: (a) => void (a.reinvocation?.isReinvoke() || a.reinvocation?.setShouldReinvoke()),
        }),
        admissionPlugin({ name: 'Validator', validate: () => {} }),
        denyAll('NoDeletes', ['DELETE']),
      ],
      { metrics },
    );
    await chain.admit(attrs('CREATE'));
    await chain.validate(attrs('CREATE'));
    await expect(chain.validate(attrs('DELETE'))).rejects.toThrow('forbidden');
    expect(steps).toEqual(['admit CREATE false', 'validate CREATE false', 'validate DELETE true']);
    expect(controllers).toEqual([
      'Asks admit CREATE false',
      'Asks admit CREATE false',
      'Validator validate CREATE false',
      'Validator validate DELETE false',
      'NoDeletes validate DELETE true',
    ]);
    expect(chain.name).toBe('AdmissionChain');
    expect(new AdmissionChain([], { name: 'named' }).name).toBe('named');
  });
});
