import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, send, startChain, type TestChain } from '../test-support/chain.ts';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

let c: TestChain;
beforeAll(async () => {
  c = await startChain();
});
afterAll(() => c.stop());

function apiService(name: string, spec: Json): Json {
  return { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec };
}

const valid = { group: 'wardle.example.com', version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15 };

/** The causes of a 422, as `field: message` lines. */
async function refused(body: Json): Promise<string[]> {
  const res = await send('POST', c.url + APISERVICES, body);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.reason).toBe('Invalid');
  return (res.body.details.causes as Json[]).map((x) => `${x.field}: ${x.message}`);
}

describe('APIService validation (kube-aggregator ValidateAPIService)', () => {
  it('requires the name to be spec.version + "." + spec.group', async () => {
    expect(await refused(apiService('wardle', valid))).toEqual([
      'metadata.name: Invalid value: "wardle": must be `spec.version+"."+spec.group`: "v1alpha1.wardle.example.com"',
    ]);
  });

  it('allows an empty group only in v1 (named "v1.")', async () => {
    expect(await refused(apiService('v2.', { ...valid, group: '', version: 'v2' }))).toEqual([
      'spec.group: Required value: only v1 may have an empty group and it better be legacy kube',
    ]);
  });

  it('checks the group as a DNS subdomain and the version as a DNS-1035 label', async () => {
    const causes = await refused(apiService('V1.Bad_Group', { ...valid, group: 'Bad_Group', version: 'V1' }));
    expect(causes).toContainEqual(expect.stringMatching(/^spec\.group: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain/));
    expect(causes).toContainEqual(expect.stringMatching(/^spec\.version: Invalid value: "V1": a DNS-1035 label must consist of/));
  });

  it('checks the priorities (absent is zero, as in Go)', async () => {
    expect(
      await refused(apiService('v1alpha1.wardle.example.com', { group: 'wardle.example.com', version: 'v1alpha1', versionPriority: 1001 })),
    ).toEqual([
      'spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000',
      'spec.versionPriority: Invalid value: 1001: must be positive and less than 1000',
    ]);
    expect(await refused(apiService('v1alpha1.wardle.example.com', { ...valid, groupPriorityMinimum: 20001 }))).toEqual([
      'spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000',
    ]);
  });

  it('refuses a caBundle or insecureSkipTLSVerify on a local APIService', async () => {
    expect(
      await refused(
        apiService('v1alpha1.wardle.example.com', {
          ...valid,
          caBundle: Buffer.from('0123456789').toString('base64'),
          insecureSkipTLSVerify: true,
        }),
      ),
    ).toEqual([
      'spec.caBundle: Invalid value: "10 bytes": local APIServices may not have a caBundle',
      'spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify',
    ]);
  });

  it('requires a Service its namespace and name, a valid port, and not both caBundle and insecureSkipTLSVerify', async () => {
    expect(
      await refused(
        apiService('v1alpha1.wardle.example.com', {
          ...valid,
          service: { port: 70000 },
          caBundle: Buffer.from('ca').toString('base64'),
          insecureSkipTLSVerify: true,
        }),
      ),
    ).toEqual([
      'spec.service.namespace: Required value',
      'spec.service.name: Required value',
      'spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
      'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
    ]);
  });

  it('defaults a Service port to 443 and leaves a remote APIService without a condition (Unknown in the table)', async () => {
    const res = await send(
      'POST',
      c.url + APISERVICES,
      apiService('v1alpha1.wardle.example.com', { ...valid, service: { namespace: 'wardle', name: 'api' }, insecureSkipTLSVerify: true }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.spec.service).toEqual({ namespace: 'wardle', name: 'api', port: 443 });
    expect(res.body.status).toEqual({});

    const table = await send('GET', c.url + APISERVICES, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.status).toBe(200);
    expect((table.body.columnDefinitions as Json[]).map((d) => d.name)).toEqual(['Name', 'Service', 'Available', 'Age']);
    const rows = new Map((table.body.rows as Json[]).map((r) => [r.cells[0], r.cells.slice(1, 3)]));
    expect(rows.get('v1alpha1.wardle.example.com')).toEqual(['wardle/api', 'Unknown']);
    expect(rows.get('v1.')).toEqual(['Local', 'True']);
  });

  it('checks condition statuses written through the status subresource, and shows False with its reason', async () => {
    await send(
      'POST',
      c.url + APISERVICES,
      apiService('v1.status.example.com', {
        ...valid,
        group: 'status.example.com',
        version: 'v1',
        service: { namespace: 'a', name: 'b' },
        insecureSkipTLSVerify: true,
      }),
    );
    const current = (await send('GET', `${c.url}${APISERVICES}/v1.status.example.com`)).body;
    const bad = await send('PUT', `${c.url}${APISERVICES}/v1.status.example.com/status`, {
      ...current,
      status: { conditions: [{ type: 'Available', status: 'Maybe' }] },
    });
    expect(bad.status).toBe(422);
    expect((bad.body.details.causes as Json[]).map((x) => `${x.field}: ${x.message}`)).toEqual([
      'status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"',
    ]);
    // A time Go could not decode is a 400, as kube's decoder answers.
    const badTime = await send('PUT', `${c.url}${APISERVICES}/v1.status.example.com/status`, {
      ...current,
      status: { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: 'garbage' }] },
    });
    expect(badTime.status).toBe(400);
    expect(badTime.body.message).toBe(
      'APIService in version "v1" cannot be handled as a APIService: parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"',
    );
    const ok = await send('PUT', `${c.url}${APISERVICES}/v1.status.example.com/status`, {
      ...current,
      status: {
        conditions: [
          { type: 'Available', status: 'False', reason: 'MissingEndpoints', message: 'endpoints for service/b in "a" have no addresses' },
        ],
      },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const table = await send('GET', `${c.url}${APISERVICES}/v1.status.example.com`, undefined, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(table.body.rows[0].cells.slice(0, 3)).toEqual(['v1.status.example.com', 'a/b', 'False (MissingEndpoints)']);
  });
});
