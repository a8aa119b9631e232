import { PassThrough } from 'node:stream';
import { type AdmissionAttributes, AdmissionChain, admissionForbidden, admissionPlugin } from '@kapi/admission';
import { TokenFileAuthenticator, withAuthenticatedGroup } from '@kapi/authn';
import { AlwaysAllowAuthorizer, type AuthorizationAttributes, type Authorizer } from '@kapi/authz';
import { ConfigMap, Namespace } from '@kapi/registry';
import { MemoryStorage } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { Widget } from '../../../../examples/control-plane/src/widget.ts';
import { LogAuditBackend } from '../audit/log-backend.ts';
import { policyAtLevel } from '../audit/policy.ts';
import { type Listening, listen } from '../filters/serve.ts';
import { GenericAPIServer, type GenericAPIServerOptions } from './generic-api-server.ts';

/** Authentication, impersonation, audit, authorization and admission as GenericAPIServer wires them. */

const TOKENS = 'admin-token,admin,1,"system:masters"\nbob-token,bob,2\n';
const CM = '/api/v1/namespaces/default/configmaps';
const WIDGETS = '/apis/example.kapi.dev/v1/namespaces/default/widgets';

let running: { server: GenericAPIServer; http: Listening } | undefined;

afterEach(async () => {
  await running?.http.close();
  await running?.server.shutdown();
  running = undefined;
});

async function start(options: Partial<GenericAPIServerOptions>): Promise<string> {
  const server = new GenericAPIServer({ storage: new MemoryStorage(), resources: [Namespace, ConfigMap, Widget], ...options });
  await server.start();
  running = { server, http: await listen(server.handler) };
  return running.http.url;
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
const json = async (res: Response): Promise<any> => res.json();

function request(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const configMap = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
});

/** Allows admin everything; bob may only get and list configmaps; records what it was asked. */
function bobCanOnlyRead(asked: AuthorizationAttributes[]): Authorizer {
  return {
    async authorize(attrs) {
      asked.push(attrs);
      if (attrs.user.groups.includes('system:masters')) return { decision: 'Allow', reason: '' };
      if (attrs.user.name === 'bob' && attrs.resource === 'configmaps' && (attrs.verb === 'get' || attrs.verb === 'list'))
        return { decision: 'Allow', reason: '' };
      return { decision: 'NoOpinion', reason: '' };
    },
  };
}

describe('authentication and authorization', () => {
  const authentication = { authenticator: withAuthenticatedGroup(TokenFileAuthenticator.fromCSV(TOKENS)) };

  it('answers 401 without a valid token and serves the token user', async () => {
    const url = await start({ authentication, authorizer: new AlwaysAllowAuthorizer() });
    const anonymous = await request(`${url}${CM}`, 'GET');
    expect(anonymous.status).toBe(401);
    expect(await json(anonymous)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized', code: 401 });
    expect((await request(`${url}${CM}`, 'GET', undefined, bearer('wrong'))).status).toBe(401);
    expect((await request(`${url}${CM}`, 'GET', undefined, bearer('bob-token'))).status).toBe(200);
  });

  it("answers 403 with kube's message when the authorizer does not allow, and passes the request's attributes", async () => {
    const asked: AuthorizationAttributes[] = [];
    const url = await start({ authentication, authorizer: bobCanOnlyRead(asked) });
    expect((await request(`${url}${CM}`, 'GET', undefined, bearer('bob-token'))).status).toBe(200);
    const denied = await request(`${url}${CM}`, 'POST', configMap('c1'), bearer('bob-token'));
    expect(denied.status).toBe(403);
    expect(await json(denied)).toMatchObject({
      reason: 'Forbidden',
      message: 'configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "default"',
      details: { kind: 'configmaps' },
    });
    expect(asked.at(-1)).toMatchObject({ verb: 'create', resource: 'configmaps', namespace: 'default', resourceRequest: true });
    expect(asked.at(-1)?.user).toMatchObject({ name: 'bob', groups: ['system:authenticated'] });
  });

  it('lets an allowed user impersonate another, whose rights then apply', async () => {
    const asked: AuthorizationAttributes[] = [];
    const url = await start({ authentication, authorizer: bobCanOnlyRead(asked) });
    const asBob = { ...bearer('admin-token'), 'impersonate-user': 'bob' };
    expect((await request(`${url}${CM}`, 'GET', undefined, asBob)).status).toBe(200);
    expect((await request(`${url}${CM}`, 'POST', configMap('c1'), asBob)).status).toBe(403);
    expect(asked.some((a) => a.verb === 'impersonate' && a.resource === 'users' && a.name === 'bob')).toBe(true);
    // bob may not impersonate anyone.
    const refused = await request(`${url}${CM}`, 'GET', undefined, { ...bearer('bob-token'), 'impersonate-user': 'admin' });
    expect(refused.status).toBe(403);
    expect((await json(refused)).message).toBe(
      'users "admin" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });
});

describe('admission', () => {
  it('runs mutating admission before validation and storage, and validating admission on the final object', async () => {
    const seen: string[] = [];
    const admission = new AdmissionChain([
      admissionPlugin({
        name: 'LabelOwner',
        operations: ['CREATE', 'UPDATE'],
        admit: (a: AdmissionAttributes) => {
          seen.push(`admit ${a.operation} ${a.resource.resource} ${a.name} old=${a.oldObject ? 'yes' : 'no'}`);
          if (a.object) a.object.metadata.annotations = { ...a.object.metadata.annotations, owner: a.userInfo.name };
        },
      }),
      admissionPlugin({
        name: 'NoPink',
        operations: ['CREATE', 'UPDATE'],
        validate: (a: AdmissionAttributes) => {
          // Validation sees what mutation and the strategy made of the object.
          seen.push(`validate ${a.operation} owner=${a.object?.metadata.annotations?.owner} generation=${a.object?.metadata.generation}`);
          if ((a.object as { spec?: { color?: string } } | null)?.spec?.color === 'pink')
            throw admissionForbidden(a, 'pink is not allowed');
        },
      }),
      admissionPlugin({
        name: 'KeepProtected',
        operations: ['DELETE'],
        validate: (a: AdmissionAttributes) => {
          if (a.oldObject?.metadata.labels?.protected === 'true') throw admissionForbidden(a, 'protected');
        },
      }),
    ]);
    const url = await start({ admission });
    const widget = { apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { replicas: 1 } };
    const created = await request(`${url}${WIDGETS}`, 'POST', widget);
    expect(created.status).toBe(201);
    expect((await json(created)).metadata.annotations).toEqual({ owner: 'system:anonymous' });
    expect(seen).toEqual(['admit CREATE widgets w1 old=no', 'validate CREATE owner=system:anonymous generation=1']);

    const pink = await request(
      `${url}${WIDGETS}/w1`,
      'PATCH',
      { spec: { color: 'pink' } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(pink.status).toBe(403);
    expect((await json(pink)).message).toBe('widgets.example.kapi.dev "w1" is forbidden: pink is not allowed');
    expect(seen.slice(2)).toEqual(['admit UPDATE widgets w1 old=yes', 'validate UPDATE owner=system:anonymous generation=2']);
    // Nothing was stored by the refused patch.
    expect((await json(await request(`${url}${WIDGETS}/w1`, 'GET'))).spec).toEqual({ replicas: 1 });

    // Validating admission of DELETE sees the stored object; a dry run is admitted the same way.
    expect((await request(`${url}${CM}`, 'POST', configMap('keep', { protected: 'true' }))).status).toBe(201);
    expect((await request(`${url}${CM}/keep?dryRun=All`, 'DELETE')).status).toBe(403);
    const refused = await request(`${url}${CM}/keep`, 'DELETE');
    expect(refused.status).toBe(403);
    expect((await json(refused)).message).toBe('configmaps "keep" is forbidden: protected');
    expect((await request(`${url}${CM}/keep`, 'GET')).status).toBe(200);
  });
});

describe('audit', () => {
  it('logs every request at the policy level, with the objects at RequestResponse', async () => {
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const url = await start({
      authentication: { authenticator: TokenFileAuthenticator.fromCSV(TOKENS) },
      authorizer: new AlwaysAllowAuthorizer(),
      audit: { backend: new LogAuditBackend(out), policy: policyAtLevel('RequestResponse') },
    });
    const res = await request(`${url}${CM}`, 'POST', { ...configMap('audited'), data: { a: 'b' } }, bearer('admin-token'));
    expect(res.status).toBe(201);
    const auditID = res.headers.get('audit-id');
    expect(auditID).toBeTruthy();
    await new Promise<void>((resolve) => setImmediate(resolve));
    const events = lines.map((l) => JSON.parse(l)).filter((e) => e.auditID === auditID);
    expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    const done = events[1];
    expect(done).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      verb: 'create',
      user: { username: 'admin' },
      objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' },
      responseStatus: { code: 201 },
      requestObject: { kind: 'ConfigMap', metadata: { name: 'audited' }, data: { a: 'b' } },
      responseObject: { kind: 'ConfigMap', metadata: { name: 'audited', namespace: 'default' } },
    });
  });
});
