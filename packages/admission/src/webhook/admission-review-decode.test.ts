import { describe, expect, it } from 'vitest';
import { admissionReviewDecodeError } from './admission-review-decode.ts';

const review = (response: unknown) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response });

describe('admissionReviewDecodeError: what Go’s decoder refuses in an AdmissionReview answer', () => {
  it('accepts well-typed answers, nulls and unknown fields', () => {
    expect(admissionReviewDecodeError(review({ uid: 'u', allowed: true, warnings: ['w', null], extra: 1 }))).toBeUndefined();
    expect(
      admissionReviewDecodeError(
        review({
          uid: 'u',
          allowed: false,
          status: { code: 403, reason: 'Forbidden', details: { causes: [{ field: 'f' }], retryAfterSeconds: 1 } },
          patch: null,
        }),
      ),
    ).toBeUndefined();
    expect(admissionReviewDecodeError(review({ allowed: true, patchType: 'JSONPatch', patch: 'W10=' }))).toBeUndefined();
  });

  it("words a mismatch as Go's UnmarshalTypeError: innermost struct, full path, the first in document order", () => {
    expect(admissionReviewDecodeError(review({ allowed: 'yes' }))).toBe(
      'json: cannot unmarshal string into Go struct field AdmissionResponse.response.allowed of type bool',
    );
    expect(admissionReviewDecodeError(review({ status: { message: 5, code: 'x' } }))).toBe(
      'json: cannot unmarshal number into Go struct field Status.response.status.message of type string',
    );
    expect(admissionReviewDecodeError(review({ status: { code: 2147483648 } }))).toBe(
      'json: cannot unmarshal number 2147483648 into Go struct field Status.response.status.code of type int32',
    );
    expect(admissionReviewDecodeError(review({ status: { details: { causes: [5] } } }))).toBe(
      'json: cannot unmarshal number into Go struct field StatusDetails.response.status.details.causes of type v1.StatusCause',
    );
    expect(admissionReviewDecodeError(review({ auditAnnotations: { a: true } }))).toBe(
      'json: cannot unmarshal bool into Go struct field AdmissionResponse.response.auditAnnotations of type string',
    );
    expect(admissionReviewDecodeError(review([]))).toBe(
      'json: cannot unmarshal array into Go struct field AdmissionReview.response of type v1.AdmissionResponse',
    );
  });

  it('refuses a patch that is not standard padded base64', () => {
    expect(admissionReviewDecodeError(review({ patch: 'a$' }))).toBe('illegal base64 data at input byte 1');
    expect(admissionReviewDecodeError(review({ patch: 'W10' }))).toBe('illegal base64 data at input byte 0');
  });
});
