import { describe, expect, it } from 'vitest';
import { answersProgressInOrder, ProgressRequestSupport } from './progress-request-support.ts';

describe('answersProgressInOrder', () => {
  it('is true from etcd 3.4.31 and 3.5.13 on (kube-apiserver RequestWatchProgress), false before and for nonsense', () => {
    const yes = ['3.4.31', '3.4.40', '3.5.13', '3.5.21', '3.6.0', 'v3.6.4', '4.0.0'];
    const no = ['3.4.23', '3.4.30', '3.5.0', '3.5.12', '3.3.27', '2.3.8', '', 'dev', '3.4'];
    expect(yes.filter((v) => !answersProgressInOrder(v))).toEqual([]);
    expect(no.filter((v) => answersProgressInOrder(v))).toEqual([]);
  });
});

describe('ProgressRequestSupport', () => {
  it('is false until every member answered, true only if all of them are new enough', async () => {
    const versions: Record<string, string> = { a: '3.5.13', b: '3.5.12' };
    const mixed = new ProgressRequestSupport(['a', 'b'], async (e) => versions[e] as string);
    expect(mixed.supported).toBe(false);
    expect(await mixed.check()).toBe(false);
    const fixed = new ProgressRequestSupport(['a'], async (e) => versions[e] as string);
    expect(fixed.supported).toBe(false);
    expect(await fixed.check()).toBe(true);
    expect(fixed.supported).toBe(true);
  });

  it('a member that cannot be asked leaves it false, and it asks again later', async () => {
    let up = false;
    const s = new ProgressRequestSupport(['a'], async () => {
      if (!up) throw new Error('unavailable');
      return '3.6.1';
    });
    expect(await s.check()).toBe(false);
    up = true;
    expect(await s.check()).toBe(true);
    expect(s.supported).toBe(true);
  });
});
