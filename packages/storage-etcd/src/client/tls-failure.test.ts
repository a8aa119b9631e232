import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { EtcdTLSError, explainTLSFailure } from './tls-failure.ts';

const unavailable = (details: string) => Object.assign(new Error(`14 UNAVAILABLE: ${details}`), { code: status.UNAVAILABLE, details });
const endpoint = 'https://127.0.0.1:2379';

describe('explainTLSFailure', () => {
  it('explains a plaintext etcd that resets a TLS client before any answer as it explains one that answers without TLS', () => {
    // What grpc-js reported in CI for an https:// client on a plaintext etcd under load.
    const reset = explainTLSFailure(
      unavailable('No connection established. Last error: Error: read ECONNRESET. Resolution note: '),
      endpoint,
    );
    expect(reset).toBeInstanceOf(EtcdTLSError);
    expect((reset as Error).message).toBe(
      `14 UNAVAILABLE: TLS handshake with etcd at ${endpoint} failed (read ECONNRESET): the member closed the connection or answered without TLS: is it serving TLS? (an http:// endpoint is for a plaintext etcd)`,
    );
    const answered = explainTLSFailure(
      unavailable('No connection established. Last error: Error: 40E8:error:0A00010B:SSL routines:ssl3_get_record:wrong version number'),
      endpoint,
    );
    expect((answered as Error).message).toMatch(/is it serving TLS\?/);
  });

  it('leaves other failures as they are: a reset after the connection was made, and errors that are not UNAVAILABLE', () => {
    const later = unavailable('read ECONNRESET');
    expect(explainTLSFailure(later, endpoint)).toBe(later);
    const other = Object.assign(new Error('4 DEADLINE_EXCEEDED'), {
      code: status.DEADLINE_EXCEEDED,
      details: 'No connection established. Last error: Error: read ECONNRESET',
    });
    expect(explainTLSFailure(other, endpoint)).toBe(other);
  });
});
