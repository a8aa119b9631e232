import { describe, expect, it } from 'vitest';
import { type RequestInfo, RequestInfoError, RequestInfoResolver } from './request-info.ts';

const resolver = new RequestInfoResolver();

type Row = [
  method: string,
  url: string,
  verb: string,
  apiPrefix: string,
  apiGroup: string,
  apiVersion: string,
  namespace: string,
  resource: string,
  subresource: string,
  name: string,
  parts: string[],
];

// requestinfo_test.go TestGetAPIRequestInfo successCases (kube's table leaves apiPrefix unchecked and says "api"
// for /apis URLs; here it is checked with the real value).
const apiCases: Row[] = [
  // resource paths
  ['GET', '/api/v1/namespaces', 'list', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
  ['GET', '/api/v1/namespaces/other', 'get', 'api', '', 'v1', 'other', 'namespaces', '', 'other', ['namespaces', 'other']],
  ['GET', '/api/v1/namespaces/other/pods', 'list', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['HEAD', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['GET', '/api/v1/pods', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['HEAD', '/api/v1/pods', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  [
    'PATCH',
    '/api/v1/namespaces/new-namespace',
    'patch',
    'api',
    '',
    'v1',
    'new-namespace',
    'namespaces',
    '',
    'new-namespace',
    ['namespaces', 'new-namespace'],
  ],
  // special verbs
  ['GET', '/api/v1/proxy/namespaces/other/pods/foo', 'proxy', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  [
    'GET',
    '/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource',
    'proxy',
    'api',
    '',
    'v1',
    'other',
    'pods',
    '',
    'foo',
    ['pods', 'foo', 'subpath', 'not', 'a', 'subresource'],
  ],
  ['GET', '/api/v1/watch/pods', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/pods?watch=true', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/pods?watch=false', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/watch/namespaces/other/pods', 'watch', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/other/pods?watch=1', 'watch', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/other/pods?watch=0', 'list', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  // subresource identification
  ['GET', '/api/v1/namespaces/other/pods/foo/status', 'get', 'api', '', 'v1', 'other', 'pods', 'status', 'foo', ['pods', 'foo', 'status']],
  [
    'GET',
    '/api/v1/namespaces/other/pods/foo/proxy/subpath',
    'get',
    'api',
    '',
    'v1',
    'other',
    'pods',
    'proxy',
    'foo',
    ['pods', 'foo', 'proxy', 'subpath'],
  ],
  [
    'PUT',
    '/api/v1/namespaces/other/finalize',
    'update',
    'api',
    '',
    'v1',
    'other',
    'namespaces',
    'finalize',
    'other',
    ['namespaces', 'other', 'finalize'],
  ],
  [
    'PUT',
    '/api/v1/namespaces/other/status',
    'update',
    'api',
    '',
    'v1',
    'other',
    'namespaces',
    'status',
    'other',
    ['namespaces', 'other', 'status'],
  ],
  // verb identification
  ['PATCH', '/api/v1/namespaces/other/pods/foo', 'patch', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['DELETE', '/api/v1/namespaces/other/pods/foo', 'delete', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['POST', '/api/v1/namespaces/other/pods', 'create', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  // deletecollection verb identification
  ['DELETE', '/api/v1/nodes', 'deletecollection', 'api', '', 'v1', '', 'nodes', '', '', ['nodes']],
  ['DELETE', '/api/v1/namespaces', 'deletecollection', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
  ['DELETE', '/api/v1/namespaces/other/pods', 'deletecollection', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  [
    'DELETE',
    '/apis/extensions/v1/namespaces/other/pods',
    'deletecollection',
    'apis',
    'extensions',
    'v1',
    'other',
    'pods',
    '',
    '',
    ['pods'],
  ],
  // api group identification
  ['POST', '/apis/extensions/v1/namespaces/other/pods', 'create', 'apis', 'extensions', 'v1', 'other', 'pods', '', '', ['pods']],
  // api version identification
  ['POST', '/apis/extensions/v1beta3/namespaces/other/pods', 'create', 'apis', 'extensions', 'v1beta3', 'other', 'pods', '', '', ['pods']],

  // beyond kube's table: behaviour that follows from the same code
  ['PUT', '/api/v1/namespaces/other/pods/foo', 'update', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['OPTIONS', '/api/v1/pods', '', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['get', '/api/v1/pods', '', 'api', '', 'v1', '', 'pods', '', '', ['pods']], // methods are case-sensitive in Go
  [
    'GET',
    '/apis/apps/v1/namespaces/ns/deployments/d/scale',
    'get',
    'apis',
    'apps',
    'v1',
    'ns',
    'deployments',
    'scale',
    'd',
    ['deployments', 'd', 'scale'],
  ],
  ['GET', '/apis/apps/v1/deployments?watch=true', 'watch', 'apis', 'apps', 'v1', '', 'deployments', '', '', ['deployments']],
  [
    'GET',
    '/apis/apps/v1/watch/namespaces/ns/deployments/d',
    'watch',
    'apis',
    'apps',
    'v1',
    'ns',
    'deployments',
    '',
    'd',
    ['deployments', 'd'],
  ],
  ['GET', '/api/v1/namespaces/ns/pods?watch=TRUE', 'watch', 'api', '', 'v1', 'ns', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/ns/pods?watch=FALSE', 'list', 'api', '', 'v1', 'ns', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/pods?watch=', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']], // only false/0 are false
  ['GET', '/api/v1/pods?watch', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/pods?watch=0&watch=1', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']], // first value wins
  ['GET', '/api/v1/pods?watch=1&watch=0', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/pods?%77atch=%74rue', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/pods?watch=%zz&watch=true', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']], // bad pair dropped
  ['GET', '/api/v1/pods?watch;x=true', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']], // ';' in key: dropped
  ['GET', '/api/v1/pods/foo?watch=true', 'get', 'api', '', 'v1', '', 'pods', '', 'foo', ['pods', 'foo']], // named: no watch
  ['DELETE', '/api/v1/pods?fieldSelector=metadata.name%3Dfoo', 'deletecollection', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['PUT', '/api/v1/namespaces/ns/status', 'update', 'api', '', 'v1', 'ns', 'namespaces', 'status', 'ns', ['namespaces', 'ns', 'status']],
  ['GET', '/api/v1/namespaces/ns/configmaps/a/b/c', 'get', 'api', '', 'v1', 'ns', 'configmaps', 'b', 'a', ['configmaps', 'a', 'b', 'c']],
  ['GET', '/api/v1/proxy/nodes/n1/x', 'proxy', 'api', '', 'v1', '', 'nodes', '', 'n1', ['nodes', 'n1', 'x']],
  // percent-decoding happens before splitting, as with Go's URL.Path
  ['GET', '/api/v1/namespaces/my%2Dns/pods/p%C3%A9', 'get', 'api', '', 'v1', 'my-ns', 'pods', '', 'pé', ['pods', 'pé']],
  ['GET', '/api/v1/namespaces/a%2Fb/pods', 'get', 'api', '', 'v1', 'a', 'b', '', 'pods', ['b', 'pods']],
  ['GET', '/api/v1/pods/a+b', 'get', 'api', '', 'v1', '', 'pods', '', 'a+b', ['pods', 'a+b']], // '+' is literal in paths
  ['GET', '/api/v1/pods/100%', 'get', 'api', '', 'v1', '', 'pods', '', '100%', ['pods', '100%']], // bad escape kept
  // empty segments are kept, only the ends are trimmed
  ['GET', '//api/v1/pods//', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1//pods', 'get', 'api', '', 'v1', '', '', '', 'pods', ['', 'pods']],
  ['GET', '/api/v1/namespaces//pods', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  // absolute-form request target
  ['GET', 'https://example.com:6443/api/v1/pods?watch=1', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
];

describe('RequestInfoResolver: resource requests (TestGetAPIRequestInfo)', () => {
  it.each(apiCases)('%s %s', (method, url, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts) => {
    const info = resolver.resolve(method, url);
    expect(info).toEqual({
      isResourceRequest: true,
      path: info.path,
      verb,
      apiPrefix,
      apiGroup,
      apiVersion,
      namespace,
      resource,
      subresource,
      name,
      parts,
    } satisfies RequestInfo);
  });

  // kube's errorCases: none is an error, none a resource request.
  it.each([
    ['no resource path', '/'],
    ['just apiversion', '/api/version/'],
    ['just prefix, group, version', '/apis/group/version/'],
    ['bad prefix', '/badprefix/version/resource'],
    ['missing api group', '/apis/version/resource'],
  ])('%s: %s is not a resource request', (_, url) => {
    const info = resolver.resolve('GET', url);
    expect(info.isResourceRequest).toBe(false);
    expect(info.verb).toBe('get');
    expect(info.parts).toEqual([]);
  });
});

describe('RequestInfoResolver: TestGetNonAPIRequestInfo', () => {
  it.each([
    ['simple groupless', '/api/version/resource', true],
    ['simple group', '/apis/group/version/resource/name/subresource', true],
    ['more steps', '/api/version/resource/name/subresource', true],
    ['group list', '/apis/batch/v1/job', true],
    ['group get', '/apis/batch/v1/job/foo', true],
    ['group subresource', '/apis/batch/v1/job/foo/scale', true],
    ['bad root', '/not-api/version/resource', false],
    ['group without enough steps', '/apis/extensions/v1beta1', false],
    ['group without enough steps 2', '/apis/extensions/v1beta1/', false],
    ['not enough steps', '/api/version', false],
    ['one step', '/api', false],
    ['zero step', '/', false],
    ['empty', '', false],
  ])('%s: %s', (_, url, expected) => {
    expect(resolver.resolve('GET', url).isResourceRequest).toBe(expected);
  });

  it.each([
    ['GET', '/healthz', 'get', ''],
    ['GET', '/version', 'get', ''],
    ['GET', '/openapi/v2', 'get', ''],
    ['GET', '/api', 'get', ''],
    ['GET', '/apis', 'get', ''],
    ['GET', '/apis/apps', 'get', ''],
    // kube records the prefix before finding too few parts for a group and version
    ['GET', '/apis/apps/v1', 'get', 'apis'],
    ['GET', '/api/v1', 'get', ''],
    ['POST', '/healthz', 'post', ''],
    ['PUT', '/logs/x', 'put', ''],
    ['DELETE', '/metrics', 'delete', ''],
    ['OPTIONS', '/', 'options', ''],
  ])('%s %s → non-resource verb %s', (method, url, verb, apiPrefix) => {
    expect(resolver.resolve(method, url)).toEqual({
      isResourceRequest: false,
      path: url,
      verb,
      apiPrefix,
      apiGroup: '',
      apiVersion: '',
      namespace: '',
      resource: '',
      subresource: '',
      name: '',
      parts: [],
    } satisfies RequestInfo);
  });

  it('keeps the decoded path and ignores the query for non-resource requests', () => {
    const info = resolver.resolve('GET', '/healthz/ping%2Dx?verbose=1');
    expect(info.path).toBe('/healthz/ping-x');
    expect(info.isResourceRequest).toBe(false);
  });
});

describe('RequestInfoResolver: TestFieldSelectorParsing', () => {
  it.each([
    ['no selector', '/apis/group/version/resource', '', 'list'],
    ['metadata.name selector', '/apis/group/version/resource?fieldSelector=metadata.name=name1', 'name1', 'list'],
    ['metadata.name selector with watch', '/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1', 'name1', 'watch'],
    ['random selector', '/apis/group/version/resource?fieldSelector=foo=bar', '', 'list'],
    ['invalid selector with metadata.name', '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo', '', 'list'],
    [
      'invalid selector with metadata.name with watch',
      '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true',
      '',
      'watch',
    ],
    [
      'invalid selector with metadata.name with watch false',
      '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false',
      '',
      'list',
    ],
    // beyond kube's table
    ['encoded selector', '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dp1&watch=1', 'p1', 'watch'],
    ['== operator', '/api/v1/pods?fieldSelector=metadata.name%3D%3Dp1', 'p1', 'list'],
    ['!= does not name', '/api/v1/pods?fieldSelector=metadata.name!%3Dp1', '', 'list'],
    ['with other terms', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn,metadata.name%3Dp1', 'p1', 'list'],
    ['first fieldSelector wins', '/api/v1/pods?fieldSelector=metadata.name%3Da&fieldSelector=metadata.name%3Db', 'a', 'list'],
    ['"+" decodes to space, invalid selector', '/api/v1/pods?fieldSelector=metadata.name%3Da+b,c', '', 'list'],
    ['name with "/" is not a path segment', '/api/v1/pods?fieldSelector=metadata.name%3Da%2Fb', '', 'list'],
    ['name ".." is not a path segment', '/api/v1/pods?fieldSelector=metadata.name%3D..', '', 'list'],
    ['name with "%" is not a path segment', '/api/v1/pods?fieldSelector=metadata.name%3Da%25b', '', 'list'],
    ['valid labelSelector', '/api/v1/pods?labelSelector=app%3Dx&fieldSelector=metadata.name%3Dp1', 'p1', 'list'],
    ['invalid labelSelector drops name', '/api/v1/pods?labelSelector=a%20in%20&fieldSelector=metadata.name%3Dp1&watch=1', '', 'watch'],
    ['invalid limit drops name', '/api/v1/pods?limit=abc&fieldSelector=metadata.name%3Dp1', '', 'list'],
    ['empty limit drops name', '/api/v1/pods?limit=&fieldSelector=metadata.name%3Dp1', '', 'list'],
    ['valid limit keeps name', '/api/v1/pods?limit=%2B5&fieldSelector=metadata.name%3Dp1', 'p1', 'list'],
    ['int64 overflow drops name', '/api/v1/pods?timeoutSeconds=9223372036854775808&fieldSelector=metadata.name%3Dp1', '', 'list'],
    ['legacy /watch/ ignores the selector', '/api/v1/watch/pods?fieldSelector=metadata.name%3Dp1', '', 'watch'],
  ])('%s', (_, url, name, verb) => {
    const info = resolver.resolve('GET', url);
    expect(info.name).toBe(name);
    expect(info.verb).toBe(verb);
  });

  it('a named list keeps resource/parts from the path', () => {
    const info = resolver.resolve('GET', '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dp1');
    expect(info).toMatchObject({ resource: 'pods', name: 'p1', parts: ['pods'], subresource: '' });
  });
});

describe('RequestInfoResolver: errors and options', () => {
  it.each(['/api/v1/watch', '/api/v1/proxy', '/apis/apps/v1/watch/'])('%s throws as kube returns an error', (url) => {
    let caught: unknown;
    try {
      resolver.resolve('GET', url);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(RequestInfoError);
    const info = (caught as RequestInfoError).info;
    expect(info.isResourceRequest).toBe(true);
    expect(info.verb).toBe('get');
    expect((caught as Error).message).toContain('unable to determine kind and namespace from url');
  });

  it('honours custom prefixes', () => {
    const r = new RequestInfoResolver({ apiPrefixes: ['api', 'apis', 'custom'], groupedApiPrefixes: ['apis', 'custom'] });
    expect(r.resolve('GET', '/custom/g/v1/things/t')).toMatchObject({
      isResourceRequest: true,
      apiPrefix: 'custom',
      apiGroup: 'g',
      apiVersion: 'v1',
      resource: 'things',
      name: 't',
    });
    const groupless = new RequestInfoResolver({ apiPrefixes: ['api'], groupedApiPrefixes: [] });
    expect(groupless.resolve('GET', '/apis/apps/v1/deployments').isResourceRequest).toBe(false);
    expect(groupless.resolve('GET', '/api/v1/pods').verb).toBe('list');
  });
});
