import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationConfigurationError,
  jwtAuthenticatorsFromConfiguration,
  jwtOptionsFromConfiguration,
} from './authentication-configuration.ts';
import type { OIDCAuthenticator } from './oidc.ts';
import { startTestOIDCIssuer, type TestOIDCIssuer } from './test-support/oidc-issuer.ts';
import { unionAuthenticator } from './union.ts';

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const doc = (jwt: unknown[]) => ({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthenticationConfiguration', jwt });
const entry = (over: Record<string, unknown> = {}) => ({
  issuer: { url: 'https://a.example', audiences: ['kubernetes'] },
  claimMappings: { username: { claim: 'sub', prefix: '' } },
  ...over,
});

function errorsOf(config: unknown): readonly string[] {
  try {
    jwtOptionsFromConfiguration(config);
  } catch (err) {
    expect(err).toBeInstanceOf(AuthenticationConfigurationError);
    return (err as AuthenticationConfigurationError).errors;
  }
  throw new Error('accepted');
}

describe('AuthenticationConfiguration (jwt, without CEL)', () => {
  it('maps an entry to OIDC options: explicit prefixes, groups, uid, claim validation rules, every allowed algorithm', () => {
    const [o] = jwtOptionsFromConfiguration(
      doc([
        entry({
          issuer: {
            url: 'https://a.example',
            discoveryURL: 'https://internal/.well-known/openid-configuration',
            audiences: ['x', 'y'],
            audienceMatchPolicy: 'MatchAny',
            certificateAuthority: 'PEM',
          },
          claimMappings: { username: { claim: 'email', prefix: 'a:' }, groups: { claim: 'groups', prefix: '' }, uid: { claim: 'oid' } },
          claimValidationRules: [{ claim: 'hd', requiredValue: 'example.com' }],
        }),
      ]),
      { apiAudiences: ['api'] },
    );
    expect(o).toMatchObject({
      issuerURL: 'https://a.example',
      discoveryURL: 'https://internal/.well-known/openid-configuration',
      audiences: ['x', 'y'],
      ca: 'PEM',
      usernameClaim: 'email',
      usernamePrefix: 'a:',
      groupsClaim: 'groups',
      groupsPrefix: '',
      uidClaim: 'oid',
      requiredClaims: { hd: 'example.com' },
      signingAlgorithms: ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'],
      apiAudiences: ['api'],
    });
  });

  it('refuses what kube’s validation refuses, naming each field', () => {
    expect(errorsOf({ apiVersion: 'v1', kind: 'Other' })).toEqual([
      'apiVersion: Unsupported value: "v1": supported values: "apiserver.config.k8s.io/v1"',
      'kind: Unsupported value: "Other": supported values: "AuthenticationConfiguration"',
    ]);
    expect(errorsOf(doc([entry(), entry()]))).toEqual(['jwt[1].issuer.url: Duplicate value: "https://a.example"']);
    expect(errorsOf(doc([entry({ issuer: { url: 'http://a.example', audiences: ['k'] } })]))).toEqual([
      'jwt[0].issuer.url: Invalid value: "http://a.example": URL scheme must be https',
    ]);
    expect(errorsOf(doc([entry({ issuer: { url: 'https://a.example', audiences: ['k', 'l'] } })]))).toEqual([
      'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences',
    ]);
    expect(errorsOf(doc([entry({ issuer: { url: 'https://a.example', audiences: [] } })]))).toEqual([
      'jwt[0].issuer.audiences: Required value: at least one issuer.audiences is required',
    ]);
    expect(errorsOf(doc([entry({ issuer: { url: 'https://a.example', discoveryURL: 'https://a.example/', audiences: ['k'] } })]))).toEqual([
      'jwt[0].issuer.discoveryURL: Invalid value: "https://a.example/": discoveryURL must be different from URL',
    ]);
    expect(errorsOf(doc([entry({ claimMappings: { username: { claim: 'sub' } } })]))).toEqual([
      'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
    ]);
    expect(errorsOf(doc([entry({ claimMappings: {} })]))).toEqual([
      'jwt[0].claimMappings.username: Required value: claim or expression is required',
    ]);
  });

  it('refuses CEL until kapi has it, rather than ignoring a rule', () => {
    const cel = 'CEL expressions are not supported yet (kapi has no CEL library)';
    expect(
      errorsOf(
        doc([
          entry({
            claimMappings: { username: { expression: 'claims.sub' }, extra: [{ key: 'k', valueExpression: 'claims.x' }] },
            claimValidationRules: [{ expression: 'claims.hd == "x"' }],
            userValidationRules: [{ expression: 'true' }],
          }),
        ]),
      ),
    ).toEqual([
      `jwt[0].claimValidationRules[0].expression: Forbidden: ${cel}`,
      `jwt[0].claimMappings.username.expression: Forbidden: ${cel}`,
      `jwt[0].claimMappings.extra: Forbidden: ${cel}`,
      `jwt[0].userValidationRules: Forbidden: ${cel}`,
    ]);
  });

  describe('two issuers over HTTPS in one union', () => {
    let a: TestOIDCIssuer;
    let b: TestOIDCIssuer;
    let authns: OIDCAuthenticator[] = [];
    beforeAll(async () => {
      [a, b] = await Promise.all([startTestOIDCIssuer(), startTestOIDCIssuer()]);
    });
    afterAll(async () => {
      for (const x of authns) x.close();
      await Promise.all([a?.close(), b?.close()]);
    });

    it('each issuer’s tokens map by its own entry; a token of neither is refused', async () => {
      authns = jwtAuthenticatorsFromConfiguration(
        doc([
          entry({
            issuer: { url: a.url, audiences: ['kubernetes'], certificateAuthority: a.ca },
            claimMappings: { username: { claim: 'sub', prefix: 'a:' }, groups: { claim: 'groups', prefix: 'a:' } },
          }),
          entry({
            issuer: { url: b.url, audiences: ['kubernetes'], certificateAuthority: b.ca },
            claimMappings: { username: { claim: 'email', prefix: '' } },
            claimValidationRules: [{ claim: 'tier', requiredValue: 'gold' }],
          }),
        ]),
      );
      await Promise.all(authns.map((x) => x.ready()));
      const union = unionAuthenticator(...authns);
      expect((await union.authenticate(bearer(await a.sign({ groups: ['dev'] }))))?.user).toEqual({ name: 'a:alice', groups: ['a:dev'] });
      expect((await union.authenticate(bearer(await b.sign({ email: 'b@example.com', tier: 'gold' }))))?.user).toEqual({
        name: 'b@example.com',
        groups: [],
      });
      await expect(union.authenticate(bearer(await b.sign({ email: 'b@example.com' })))).rejects.toThrow(
        'oidc: required claim tier not present in ID token',
      );
      // Signed by b's key but claiming a's issuer: a's key set has no such key.
      await expect(union.authenticate(bearer(await a.sign({}, { key: b.privateKey, kid: b.kid })))).rejects.toThrow(
        'no applicable key found in the JSON Web Key Set',
      );
      await expect(union.authenticate(bearer(await a.sign({ iss: 'https://c.example' })))).rejects.toThrow('invalid bearer token');
    });
  });
});
