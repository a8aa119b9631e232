import { describe, expect, it } from 'vitest';
import { reviewVersionFor, verifyAdmissionResponse } from './admission-review.ts';
import { dryRunUnsupported, ErrCallingWebhook, toStatusErr } from './errors.ts';

const v1 = (response: Record<string, unknown>, over: Record<string, unknown> = {}) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  response: { uid: 'u', ...response },
  ...over,
});

describe('AdmissionReview answers (kube VerifyAdmissionResponse)', () => {
  it('picks the first AdmissionReview version the webhook lists that kapi speaks', () => {
    expect(reviewVersionFor(['v2', 'v1beta1', 'v1'])).toBe('v1beta1');
    expect(reviewVersionFor(['v1', 'v1beta1'])).toBe('v1');
    expect((reviewVersionFor(['v2']) as Error).message).toBe('webhook does not accept known AdmissionReview versions (v1, v1beta1)');
  });

  it('checks a v1 answer as kube does', () => {
    const patch = Buffer.from('[]').toString('base64');
    const cases: [unknown, boolean, string][] = [
      [{ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, true, 'webhook response was absent'],
      [
        v1({}, { apiVersion: 'admission.k8s.io/v1beta1' }),
        true,
        'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview',
      ],
      [
        v1({}, { apiVersion: 'v1', kind: 'Status' }),
        true,
        'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /v1, Kind=Status',
      ],
      [v1({ uid: 'other' }), true, 'expected response.uid="u", got "other"'],
      [v1({ patch }), true, 'webhook returned response.patch but not response.patchType'],
      [v1({ patchType: 'JSONPatch' }), true, 'webhook returned response.patchType but not response.patch'],
      [v1({ patchType: 'JSONPatch' }), false, 'validating webhook may not return response.patchType'],
    ];
    for (const [review, mutating, message] of cases) expect(() => verifyAdmissionResponse('v1', 'u', mutating, review)).toThrow(message);
    expect(verifyAdmissionResponse('v1', 'u', true, v1({ allowed: true, patch, patchType: 'JSONPatch', warnings: ['w'] }))).toMatchObject({
      allowed: true,
      patchType: 'JSONPatch',
      warnings: ['w'],
    });
  });

  it("takes a v1beta1 answer without checking uid, kind or patchType, and drops a validating webhook's patch", () => {
    const patch = Buffer.from('[{"op":"remove","path":"/a"}]').toString('base64');
    const review = { response: { allowed: true, patch } };
    expect(verifyAdmissionResponse('v1beta1', 'u', true, review)).toMatchObject({ patchType: 'JSONPatch' });
    expect(verifyAdmissionResponse('v1beta1', 'u', false, review)).toMatchObject({ patch: undefined, patchType: '' });
  });
});

describe('webhook errors', () => {
  it('words a denial as kube ToStatusErr does', () => {
    expect(toStatusErr('x', { reason: 'Forbidden' }).status).toMatchObject({
      code: 400,
      reason: 'Forbidden',
      message: 'admission webhook "x" denied the request: Forbidden',
    });
    expect(toStatusErr('x', { code: 200, message: 'm' }).code).toBe(400);
    expect(toStatusErr('x', null).message).toBe('admission webhook "x" denied the request without explanation');
    expect(dryRunUnsupported('x').status).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'admission webhook "x" does not support dry run',
    });
    expect(new ErrCallingWebhook('x', 'boom', dryRunUnsupported('x')).message).toBe('failed calling webhook "x": boom');
  });
});
