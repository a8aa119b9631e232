import { describe, expect, it } from 'vitest';
import { CelEnvironment } from './environment.ts';
import { PreparedActivation } from './program.ts';

describe('Program.prepare', () => {
  it('converts once; programs of the environment evaluate the prepared values', () => {
    const env = new CelEnvironment({ variables: { object: 'dyn', limit: 'int' } });
    const a = env.compile('object.spec.replicas <= limit');
    const b = env.compile('object.spec.replicas * 2');
    if (a.kind === 'error' || b.kind === 'error') throw new Error('compile');
    const prepared = a.program.prepare({ object: { spec: { replicas: 3 } }, limit: 5 });
    expect(prepared).toBeInstanceOf(PreparedActivation);
    expect(prepared.values.limit).toBe(5n);
    expect(a.program.evaluate(prepared)).toMatchObject({ kind: 'value', value: true });
    expect(b.program.evaluate(prepared)).toMatchObject({ kind: 'value', value: 6n });
  });
});
