import { makeTestCA as makeCA, type TestCertificate } from '@kapi/test-servers';

export type { TestCertificate } from '@kapi/test-servers';

/** A test CA: its PEM, and `issue` for serving (127.0.0.1) or client certificates it signs. */
export interface TestCA {
  pem: string;
  /**
   * `subject` is `CN=<name>`; `dnsNames` adds DNS names to a serving certificate's SANs (beside 127.0.0.1, and no
   * localhost: what a webhook's or a Service's name must match).
   */
  issue(subject: string, usage: 'server' | 'client', dnsNames?: readonly string[]): Promise<TestCertificate>;
}

/**
 * Dev-only: test-servers' CA (valid for an hour) with the call the webhook tests across packages make. One
 * implementation of the CA lives in @kapi/test-servers; this keeps their `issue(subject, usage, dnsNames)`.
 */
export async function makeTestCA(cn: string): Promise<TestCA> {
  const ca = await makeCA(cn);
  return {
    pem: ca.pem,
    issue: (subject, usage, dnsNames = []) => {
      const name = /^CN=(.+)$/.exec(subject)?.[1];
      if (name === undefined) throw new Error(`test CA: subject ${JSON.stringify(subject)} is not CN=<name>`);
      return ca.issue({ cn: name, usage, ips: ['127.0.0.1'], dnsNames });
    },
  };
}
