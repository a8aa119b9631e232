import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AdmissionWebhookServer,
  jsonPatch,
  type ReceivedReview,
  type WebhookReply,
} from '../../../packages/admission/src/webhook/test-support/admission-webhook-server.ts';
import { kubectlBinaries } from '../../../scripts/kubectl-binaries.ts';
import type { ControlPlane } from './control-plane.ts';
import { BACKENDS, startBackend, type TestBackend } from './test-support/backends.ts';
import { type KubectlResult, runKubectl, startTempControlPlane, stopTempControlPlane, succeeded } from './test-support/kubectl.ts';

/**
 * Admission end to end with the real kubectl (1.32; the denial also with 1.27 and 1.33), on memory, etcd and Redis:
 * `kubectl apply` of webhook configurations calling a real HTTPS webhook the test starts with its own CA (a mutation
 * by JSONPatch, a denial through `clientConfig.service`, failurePolicy Ignore and Fail against a stopped server,
 * dry-run and sideEffects), of a ValidatingAdmissionPolicy with a ConfigMap param and bindings (Deny and Warn), and
 * `kubectl create quota` with object counts. kubectl's output is compared with what it prints against kube-apiserver.
 * Configurations, policies and namespaces reach admission through watch caches, so each step polls (with
 * `--dry-run=server`, which changes nothing) until it took effect.
 */

const [KUBECTL, KUBECTL_127, KUBECTL_133] = kubectlBinaries(['kubectl', 'kubectl.1.27', 'kubectl.1.33']) as [string, string, string];
const T = 60_000;
/** How long a configuration may take to reach admission through the watch caches. */
const POLL = { timeout: 10_000, interval: 50 };

/** The Service the validating webhook is reached through (the control plane's --admission-webhook-service). */
const SERVICE = { namespace: 'webhooks', name: 'denier', port: 8443 };

/**
 * The URL of a port on 127.0.0.1 nobody listens on: one a server of ours bound and closed, picked below the kernel's
 * ephemeral range (32768+) so that no server started on port 0 meanwhile (other suites run alongside) takes it over.
 */
async function refusedURL(): Promise<string> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise((resolve) => server.close(resolve));
    return `https://127.0.0.1:${port}`;
  }
}

/** What the test webhook answers, by path. */
function answer(r: ReceivedReview): WebhookReply {
  const path = r.path.split('?')[0];
  const object = r.review.request.object as { metadata?: { labels?: Record<string, string> } } | undefined;
  switch (path) {
    case '/mutate':
      return {
        response: {
          allowed: true,
          warnings: ['labelled by the webhook'],
          patchType: 'JSONPatch',
          patch: jsonPatch(
            object?.metadata?.labels
              ? [{ op: 'add', path: '/metadata/labels/mutated-by', value: 'webhook' }]
              : [{ op: 'add', path: '/metadata/labels', value: { 'mutated-by': 'webhook' } }],
          ),
        },
      };
    case '/deny':
      return { response: { allowed: false, status: { code: 403, message: 'configmaps in this namespace need an owner' } } };
    case '/keep':
      return { response: { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'labelled objects are kept' } } };
    case '/slow':
      return undefined; // never answers: the caller's timeoutSeconds runs out
    default:
      return { response: { allowed: true } };
  }
}

const namespace = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

/** Rules matching ConfigMap creates. */
const CONFIGMAP_CREATES = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }];
/** Rules matching Widget creates. */
const WIDGET_CREATES = [{ apiGroups: ['example.kapi.dev'], apiVersions: ['*'], operations: ['CREATE'], resources: ['widgets'] }];

const hook = (name: string, clientConfig: object, selector: Record<string, string>, over: object = {}) => ({
  name,
  clientConfig,
  rules: CONFIGMAP_CREATES,
  namespaceSelector: { matchLabels: selector },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  timeoutSeconds: 5,
  ...over,
});

/** Several manifests as one YAML stream (JSON documents are YAML). */
const stream = (...objects: object[]): string => objects.map((o) => `---\n${JSON.stringify(o, null, 2)}\n`).join('');

describe.each(BACKENDS)('admission with kubectl on %s', (backendName) => {
  let backend: TestBackend;
  let cp: ControlPlane;
  let tmp: string;
  let webhook: AdmissionWebhookServer;
  /** A webhook that is not running: connections to its address are refused. */
  let stoppedURL: string;
  let files = 0;

  beforeAll(async () => {
    stoppedURL = await refusedURL();
    webhook = await AdmissionWebhookServer.start([`${SERVICE.name}.${SERVICE.namespace}.svc`]);
    webhook.reply = answer;
    backend = await startBackend(backendName);
    ({ cp, tmp } = await startTempControlPlane('kapi-kubectl-admission-', {
      storage: backend.storage(),
      admissionWebhookServices: { [`${SERVICE.namespace}/${SERVICE.name}:${SERVICE.port}`]: webhook.url },
    }));
  }, T);
  afterAll(async () => {
    await stopTempControlPlane(cp, tmp);
    await backend?.stop();
    await webhook?.close();
  }, T);

  const kubectl = (args: readonly string[], bin = KUBECTL): Promise<KubectlResult> => runKubectl(bin, tmp, cp.kubeconfigPath, args);
  const kubectlOK = async (args: readonly string[]): Promise<string> => succeeded(args, await kubectl(args));
  /** `kubectl <verb> -f <file>` of `manifest` written to a file of its own (`name`, or a new one). */
  async function withFile(verb: readonly string[], manifest: string, name = `manifest-${files++}.yaml`): Promise<KubectlResult> {
    const file = join(tmp, name);
    await writeFile(file, manifest);
    return kubectl([...verb, '-f', file]);
  }
  const applyOK = async (manifest: string): Promise<string> => succeeded(['apply'], await withFile(['apply'], manifest));
  /** `kubectl create configmap` with `--dry-run=server`: admission runs, nothing is stored. */
  const dryRunCreate = (ns: string, name: string, ...data: string[]) =>
    kubectl(['create', 'configmap', name, '-n', ns, ...data.map((d) => `--from-literal=${d}`), '--dry-run=server', '-o', 'json']);

  it('webhooks: a JSONPatch mutation, a denial through a service, failurePolicy Ignore and Fail, dry-run and sideEffects', {
    timeout: T,
  }, async () => {
    await applyOK(
      stream(
        namespace('denied', { hooks: 'deny' }),
        namespace('ignored', { hooks: 'ignore' }),
        namespace('failed', { hooks: 'fail' }),
        namespace('dry', { hooks: 'dry' }),
        namespace('slow', { hooks: 'slow' }),
        // last: once admission sees it (the first poll below), it sees the others, which one watch delivered before
        namespace('mutated', { hooks: 'mutate' }),
      ),
    );
    expect(
      await applyOK(
        stream(
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'MutatingWebhookConfiguration',
            metadata: { name: 'label-adder' },
            webhooks: [
              hook(
                'label.example.com',
                { url: `${webhook.url}/mutate`, caBundle: webhook.caBundle },
                { hooks: 'mutate' },
                { rules: [...CONFIGMAP_CREATES, ...WIDGET_CREATES] },
              ),
            ],
          },
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'ValidatingWebhookConfiguration',
            metadata: { name: 'owners' },
            webhooks: [
              hook('owner.example.com', { service: { ...SERVICE, path: '/deny' }, caBundle: webhook.caBundle }, { hooks: 'deny' }),
              hook(
                'ignore.example.com',
                { url: `${stoppedURL}/ignore`, caBundle: webhook.caBundle },
                { hooks: 'ignore' },
                { failurePolicy: 'Ignore' },
              ),
              hook(
                'fail.example.com',
                { url: `${stoppedURL}/fail`, caBundle: webhook.caBundle },
                { hooks: 'fail' },
                { failurePolicy: 'Fail' },
              ),
              hook(
                'keep.example.com',
                { url: `${webhook.url}/keep`, caBundle: webhook.caBundle },
                { hooks: 'mutate' },
                {
                  rules: [{ ...CONFIGMAP_CREATES[0], operations: ['DELETE'] }],
                  objectSelector: { matchLabels: { 'mutated-by': 'webhook' } },
                },
              ),
              hook(
                'slow.example.com',
                { url: `${webhook.url}/slow`, caBundle: webhook.caBundle },
                { hooks: 'slow' },
                { failurePolicy: 'Fail', timeoutSeconds: 1 },
              ),
              hook(
                'dry.example.com',
                { url: `${webhook.url}/dry`, caBundle: webhook.caBundle },
                { hooks: 'dry' },
                { sideEffects: 'NoneOnDryRun' },
              ),
            ],
          },
        ),
      ),
    ).toBe(
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/label-adder created\nvalidatingwebhookconfiguration.admissionregistration.k8s.io/owners created\n',
    );

    // kube's table columns.
    expect(await kubectlOK(['get', 'mutatingwebhookconfigurations,validatingwebhookconfigurations'])).toMatch(
      new RegExp(
        [
          '^NAME +WEBHOOKS +AGE',
          'mutatingwebhookconfiguration.admissionregistration.k8s.io/label-adder +1 +\\S+',
          '',
          'NAME +WEBHOOKS +AGE',
          'validatingwebhookconfiguration.admissionregistration.k8s.io/owners +6 +\\S+\n$',
        ].join('\n'),
      ),
    );

    // The mutation: once the configuration is in admission's cache, a create stores the label the webhook added.
    await expect
      .poll(async () => JSON.parse((await dryRunCreate('mutated', 'probe')).stdout || '{}').metadata?.labels, POLL)
      .toEqual({ 'mutated-by': 'webhook' });
    // The webhook's warning reaches kubectl as a Warning header.
    expect(await kubectl(['create', 'configmap', 'labelled', '-n', 'mutated', '--from-literal=a=1'])).toEqual({
      code: 0,
      stdout: 'configmap/labelled created\n',
      stderr: 'Warning: labelled by the webhook\n',
    });
    expect(await kubectlOK(['get', 'configmap', 'labelled', '-n', 'mutated', '-o', 'jsonpath={.metadata.labels}'])).toBe(
      '{"mutated-by":"webhook"}',
    );
    expect(await kubectlOK(['get', 'configmap', 'labelled', '-n', 'mutated', '--show-labels'])).toMatch(
      /^NAME +DATA +AGE +LABELS\nlabelled +1 +\S+ +mutated-by=webhook\n$/,
    );
    // Custom kinds are mutated alike (the Widget's own labels kept).
    const widget = stream({
      apiVersion: 'example.kapi.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'mutated', labels: { app: 'demo' } },
      spec: { replicas: 1 },
    });
    expect(succeeded(['create'], await withFile(['create'], widget))).toBe('widget.example.kapi.dev/w created\n');
    expect(await kubectlOK(['get', 'widget', 'w', '-n', 'mutated', '-o', 'jsonpath={.metadata.labels}'])).toBe(
      '{"app":"demo","mutated-by":"webhook"}',
    );
    // The denial, through clientConfig.service: kubectl prints the webhook's message behind kube's prefix.
    const DENIED = 'admission webhook "owner.example.com" denied the request: configmaps in this namespace need an owner';
    await expect
      .poll(async () => (await dryRunCreate('denied', 'probe')).stderr, POLL)
      .toBe(`error: failed to create configmap: ${DENIED}\n`);
    for (const bin of [KUBECTL, KUBECTL_127, KUBECTL_133]) {
      const r = await kubectl(['create', 'configmap', 'refused', '-n', 'denied'], bin);
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: failed to create configmap: ${DENIED}\n`,
      });
    }
    expect(webhook.received.some((r) => r.servername === `${SERVICE.name}.${SERVICE.namespace}.svc`)).toBe(true);

    // (The validating configuration is in the cache now.) A DELETE is matched by the object selector on the old object's labels, and denied.
    const kept = await kubectl(['delete', 'configmap', 'labelled', '-n', 'mutated']);
    expect({ code: kept.code, stderr: kept.stderr }).toEqual({
      code: 1,
      stderr: 'Error from server (Forbidden): admission webhook "keep.example.com" denied the request: labelled objects are kept\n',
    });
    const deletion = webhook.received.find((r) => r.path.startsWith('/keep'))?.review.request;
    expect([
      deletion?.operation,
      deletion?.object,
      (deletion?.oldObject as { metadata?: { name?: string } } | undefined)?.metadata?.name,
    ]).toEqual(['DELETE', null, 'labelled']);

    // failurePolicy Ignore: the webhook cannot be reached, the create goes through.
    expect(await kubectlOK(['create', 'configmap', 'unchecked', '-n', 'ignored'])).toBe('configmap/unchecked created\n');
    // failurePolicy Fail: kube's internal error naming the webhook and why it could not be called.
    const failed = await kubectl(['create', 'configmap', 'unchecked', '-n', 'failed']);
    expect({ code: failed.code, stderr: failed.stderr }).toEqual({
      code: 1,
      stderr: `error: failed to create configmap: Internal error occurred: failed calling webhook "fail.example.com": failed to call webhook: Post "${stoppedURL}/fail?timeout=5s": dial tcp ${new URL(stoppedURL).host}: connect: connection refused\n`,
    });

    // A webhook that does not answer within its timeoutSeconds, under failurePolicy Fail.
    const slow = await kubectl(['create', 'configmap', 'unchecked', '-n', 'slow']);
    expect({ code: slow.code, stderr: slow.stderr }).toEqual({
      code: 1,
      stderr: `error: failed to create configmap: Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${webhook.url}/slow?timeout=1s": context deadline exceeded\n`,
    });

    // Dry run: a NoneOnDryRun webhook is called with dryRun true and kubectl's CreateOptions; nothing is stored.
    const before = webhook.received.length;
    expect((await dryRunCreate('dry', 'ghost')).code).toBe(0);
    const dry = webhook.received.slice(before).filter((r) => r.path.startsWith('/dry'));
    expect(dry.map((r) => [r.review.request.dryRun, r.review.request.options])).toEqual([
      [
        true,
        { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', dryRun: ['All'], fieldManager: 'kubectl-create', fieldValidation: 'Strict' },
      ],
    ]);
    expect((await kubectl(['get', 'configmap', 'ghost', '-n', 'dry'])).stderr).toBe(
      'Error from server (NotFound): configmaps "ghost" not found\n',
    );
    // sideEffects Some cannot be stored through admissionregistration.k8s.io/v1, as in kube (create requires None or
    // NoneOnDryRun; an update may keep Some only where the old object had it), so the dry-run refusal of such a webhook
    // ("does not support dry run", 400) cannot be reached through the API; the webhook package's tests cover it.
    const some = await withFile(
      ['apply'],
      stream({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'side-effects' },
        webhooks: [
          hook('some.example.com', { url: `${webhook.url}/dry`, caBundle: webhook.caBundle }, { hooks: 'dry' }, { sideEffects: 'Some' }),
        ],
      }),
    );
    expect({ code: some.code, stderr: some.stderr }).toEqual({
      code: 1,
      stderr:
        'The ValidatingWebhookConfiguration "side-effects" is invalid: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"\n',
    });
  });

  it('a ValidatingAdmissionPolicy with a ConfigMap param: Deny prints its messageExpression, Warn prints a warning', {
    timeout: T,
  }, async () => {
    await applyOK(
      // strict last, as its binding below: the first poll seeing them shows the others arrived before
      stream(namespace('policy-params'), namespace('lenient', { 'max-keys': 'warn' }), namespace('strict', { 'max-keys': 'deny' }), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'limits', namespace: 'policy-params' },
        data: { maxKeys: '2' },
      }),
    );
    const binding = (name: string, action: string) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: {
        policyName: 'max-keys',
        validationActions: [action],
        paramRef: { name: 'limits', namespace: 'policy-params', parameterNotFoundAction: 'Deny' },
        matchResources: { namespaceSelector: { matchLabels: { 'max-keys': action.toLowerCase() } } },
      },
    });
    expect(
      await applyOK(
        stream(
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'ValidatingAdmissionPolicy',
            metadata: { name: 'max-keys' },
            spec: {
              failurePolicy: 'Fail',
              paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
              matchConstraints: { resourceRules: [{ ...CONFIGMAP_CREATES[0], operations: ['CREATE', 'UPDATE'] }] },
              validations: [
                {
                  expression: '!has(object.data) || size(object.data) <= int(params.data.maxKeys)',
                  messageExpression:
                    "'configmap ' + object.metadata.name + ' has ' + string(size(object.data)) + ' keys, at most ' + params.data.maxKeys + ' are allowed'",
                },
              ],
            },
          },
          binding('max-keys-warn', 'Warn'),
          binding('max-keys-deny', 'Deny'),
        ),
      ),
    ).toBe(
      'validatingadmissionpolicy.admissionregistration.k8s.io/max-keys created\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io/max-keys-warn created\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io/max-keys-deny created\n',
    );
    expect(await kubectlOK(['get', 'validatingadmissionpolicies,validatingadmissionpolicybindings'])).toMatch(
      new RegExp(
        [
          '^NAME +VALIDATIONS +PARAMKIND +AGE',
          'validatingadmissionpolicy.admissionregistration.k8s.io/max-keys +1 +v1/ConfigMap +\\S+',
          '',
          'NAME +POLICYNAME +PARAMREF +AGE',
          'validatingadmissionpolicybinding.admissionregistration.k8s.io/max-keys-deny +max-keys +policy-params/limits +\\S+',
          'validatingadmissionpolicybinding.admissionregistration.k8s.io/max-keys-warn +max-keys +policy-params/limits +\\S+\n$',
        ].join('\n'),
      ),
    );
    const DENIED =
      `configmaps "big" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-deny' denied request: ` +
      'configmap big has 3 keys, at most 2 are allowed';
    await expect
      .poll(async () => (await dryRunCreate('strict', 'big', 'a=1', 'b=2', 'c=3')).stderr, POLL)
      .toBe(`error: failed to create configmap: ${DENIED}\n`);
    const denied = await kubectl([
      'create',
      'configmap',
      'big',
      '-n',
      'strict',
      '--from-literal=a=1',
      '--from-literal=b=2',
      '--from-literal=c=3',
    ]);
    expect({ code: denied.code, stdout: denied.stdout, stderr: denied.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: failed to create configmap: ${DENIED}\n`,
    });
    expect(await kubectlOK(['create', 'configmap', 'small', '-n', 'strict', '--from-literal=a=1', '--from-literal=b=2'])).toBe(
      'configmap/small created\n',
    );
    // Warn: the create goes through and kubectl prints the server's Warning header.
    const warned = await kubectl([
      'create',
      'configmap',
      'big',
      '-n',
      'lenient',
      '--from-literal=a=1',
      '--from-literal=b=2',
      '--from-literal=c=3',
    ]);
    expect(warned).toEqual({
      code: 0,
      stdout: 'configmap/big created\n',
      stderr:
        "Warning: Validation failed for ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-warn': configmap big has 3 keys, at most 2 are allowed\n",
    });

    // The params are watched: a higher limit lets the create through, an UPDATE is checked against it too.
    expect(await kubectlOK(['patch', 'configmap', 'limits', '-n', 'policy-params', '--type=merge', '-p', '{"data":{"maxKeys":"3"}}'])).toBe(
      'configmap/limits patched\n',
    );
    await expect.poll(async () => (await dryRunCreate('strict', 'big', 'a=1', 'b=2', 'c=3')).code, POLL).toBe(0);
    const patched = await kubectl(['patch', 'configmap', 'small', '-n', 'strict', '--type=merge', '-p', '{"data":{"c":"3","d":"4"}}']);
    // A denial without a reason is kube's 422 Invalid whose one cause has no field: kubectl's CheckErr prints it so.
    expect({ code: patched.code, stderr: patched.stderr }).toEqual({
      code: 1,
      stderr:
        `The configmaps "small" is invalid: : ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-deny' denied request: ` +
        'configmap small has 4 keys, at most 3 are allowed\n',
    });
    // parameterNotFoundAction Deny: without its param the binding denies, in kube's words.
    expect(await kubectlOK(['delete', 'configmap', 'limits', '-n', 'policy-params'])).toBe('configmap "limits" deleted\n');
    await expect
      .poll(async () => (await dryRunCreate('strict', 'empty')).stderr, POLL)
      .toBe(
        `error: failed to create configmap: configmaps "empty" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-deny' denied request: ` +
          'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction\n',
      );

    // A policy whose CEL does not compile is refused at apply, with cel-go's error under kube's field path.
    const bad = await withFile(
      ['apply'],
      stream({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'bad' },
        spec: { matchConstraints: { resourceRules: CONFIGMAP_CREATES }, validations: [{ expression: 'size(object.data) < limit' }] },
      }),
    );
    expect({ code: bad.code, stderr: bad.stderr }).toEqual({
      code: 1,
      stderr: [
        'The ValidatingAdmissionPolicy "bad" is invalid: spec.validations[0].expression: Invalid value: "size(object.data) < limit": ' +
          "compilation failed: ERROR: <input>:1:21: undeclared reference to 'limit' (in container '')",
        ' | size(object.data) < limit',
        ' | ....................^',
        '',
      ].join('\n'),
    });

    // The type-checking controller checks each policy against ConfigMap's schema and says so in its status: nothing
    // to say about max-keys, a warning about a field ConfigMaps do not have (a policy without binding, enforcing nothing).
    await applyOK(
      stream({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'typo' },
        spec: {
          matchConstraints: { resourceRules: CONFIGMAP_CREATES },
          validations: [{ expression: 'object.dat.size() < 3' }],
        },
      }),
    );
    const status = async (name: string) =>
      JSON.parse(await kubectlOK(['get', 'validatingadmissionpolicy', name, '-o', 'json'])).status as unknown;
    await expect.poll(() => status('max-keys'), POLL).toEqual({ observedGeneration: 1, typeChecking: {} });
    await expect
      .poll(() => status('typo'), POLL)
      .toEqual({
        observedGeneration: 1,
        typeChecking: {
          expressionWarnings: [
            {
              fieldRef: 'spec.validations[0].expression',
              warning: "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'dat'\n | object.dat.size() < 3\n | ......^\n",
            },
          ],
        },
      });
    expect(await kubectlOK(['get', 'validatingadmissionpolicy', 'max-keys', '-o', 'yaml'])).toContain(
      'status:\n  observedGeneration: 1\n  typeChecking: {}\n',
    );
  });

  it('kubectl create quota counts configmaps and widgets: creates beyond the limit are refused, describe shows what is used', {
    timeout: T,
  }, async () => {
    await applyOK(stream(namespace('quota')));
    expect(
      await kubectlOK(['create', 'quota', 'counts', '-n', 'quota', '--hard=count/configmaps=2,count/widgets.example.kapi.dev=1']),
    ).toBe('resourcequota/counts created\n');
    // Admission needs the quota's status.hard, which the quota controller writes.
    await expect
      .poll(async () => (await kubectl(['get', 'quota', 'counts', '-n', 'quota', '-o', 'jsonpath={.status.hard}'])).stdout, POLL)
      .not.toBe('');
    // Four creates at once against a limit of two: two get through, whichever they are.
    const racing = await Promise.all(['one', 'two', 'three', 'four'].map((name) => kubectl(['create', 'configmap', name, '-n', 'quota'])));
    expect(racing.filter((r) => r.code === 0).map((r) => r.stdout)).toHaveLength(2);
    for (const r of racing.filter((r) => r.code !== 0))
      expect(r.stderr).toMatch(
        /^error: failed to create configmap: configmaps "(one|two|three|four)" is forbidden: exceeded quota: counts, requested: count\/configmaps=1, used: count\/configmaps=\d, limited: count\/configmaps=2\n$/,
      );
    expect(await kubectlOK(['get', 'configmaps', '-n', 'quota', '-o', 'name'])).toMatch(/^(configmap\/\w+\n){2}$/);
    const third = await kubectl(['create', 'configmap', 'five', '-n', 'quota']);
    expect({ code: third.code, stderr: third.stderr }).toEqual({
      code: 1,
      stderr:
        'error: failed to create configmap: configmaps "five" is forbidden: exceeded quota: counts, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2\n',
    });
    const widget = (name: string) =>
      stream({ apiVersion: 'example.kapi.dev/v1', kind: 'Widget', metadata: { name, namespace: 'quota' }, spec: { replicas: 1 } });
    expect(succeeded(['create'], await withFile(['create'], widget('w1')))).toBe('widget.example.kapi.dev/w1 created\n');
    const w2 = await withFile(['create'], widget('w2'), 'w2.yaml');
    expect({ code: w2.code, stderr: w2.stderr }).toEqual({
      code: 1,
      stderr: `Error from server (Forbidden): error when creating "${join(tmp, 'w2.yaml')}": widgets.example.kapi.dev "w2" is forbidden: exceeded quota: counts, requested: count/widgets.example.kapi.dev=1, used: count/widgets.example.kapi.dev=1, limited: count/widgets.example.kapi.dev=1\n`,
    });
    await expect
      .poll(async () => await kubectlOK(['get', 'quota', '-n', 'quota']), POLL)
      .toMatch(/^NAME +AGE +REQUEST +LIMIT\ncounts +\S+ +count\/configmaps: 2\/2, count\/widgets.example.kapi.dev: 1\/1 +\n$/);
    await expect
      .poll(async () => await kubectlOK(['describe', 'quota', 'counts', '-n', 'quota']), POLL)
      .toBe(
        [
          'Name:                           counts',
          'Namespace:                      quota',
          'Resource                        Used  Hard',
          '--------                        ----  ----',
          'count/configmaps                2     2',
          'count/widgets.example.kapi.dev  1     1',
          '',
        ].join('\n'),
      );
  });
});
