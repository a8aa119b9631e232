import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { exportJWK, type JSONWebKeySet, type JWK } from 'jose';

/** The signing algorithms kapi issues and accepts for service-account tokens (kube: RS256 and ES256/384/512). */
export type ServiceAccountSigningAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

const EC_ALGORITHMS: Readonly<Record<string, ServiceAccountSigningAlgorithm>> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
};

/** One public key that verifies service-account tokens: its key id (kube's), algorithm and key. */
export interface VerificationKey {
  readonly kid: string;
  readonly alg: ServiceAccountSigningAlgorithm;
  readonly key: KeyObject;
}

/** The algorithm a key signs with, as kube's serviceaccount.JWTTokenGenerator picks it; throws for other key types. */
export function signingAlgorithmOf(key: KeyObject): ServiceAccountSigningAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  const alg = key.asymmetricKeyType === 'ec' ? EC_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''] : undefined;
  if (!alg) throw new Error(`service-account keys must be RSA or EC (P-256, P-384, P-521), not ${key.asymmetricKeyType}`);
  return alg;
}

/** kube's keyIDFromPublicKey: the unpadded base64url SHA-256 of the public key's DER (PKIX) encoding. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

/** A public key (SPKI PEM, or a private key's PEM whose public half is meant) as a VerificationKey. */
export function verificationKeyFromPEM(pem: string): VerificationKey {
  const key = pem.includes('PRIVATE KEY') ? createPublicKey(createPrivateKey(pem)) : createPublicKey(pem);
  return { kid: keyIdOf(key), alg: signingAlgorithmOf(key), key };
}

/** The signing key and the public keys that verify tokens (the signing key's own first, then older keys still trusted). */
export interface ServiceAccountKeySet {
  readonly signingKey: KeyObject;
  readonly signing: VerificationKey;
  readonly verification: readonly VerificationKey[];
}

/** A key set from a private key (PKCS#8 or PKCS#1/SEC1 PEM) and extra public keys still accepted (rotation). */
export function serviceAccountKeySet(privateKeyPEM: string, extraPublicKeyPEMs: readonly string[] = []): ServiceAccountKeySet {
  const signingKey = createPrivateKey(privateKeyPEM);
  const pub = createPublicKey(signingKey);
  const signing = { kid: keyIdOf(pub), alg: signingAlgorithmOf(signingKey), key: pub };
  const extra = extraPublicKeyPEMs.map(verificationKeyFromPEM).filter((k) => k.kid !== signing.kid);
  return { signingKey, signing, verification: [signing, ...extra] };
}

/** A new private key as PKCS#8 PEM: RSA 2048 for RS256 (kube's default), else the EC curve of the algorithm. */
export function generateServiceAccountKeyPEM(alg: ServiceAccountSigningAlgorithm = 'RS256'): string {
  if (alg === 'RS256') {
    return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  }
  const curve = Object.entries(EC_ALGORITHMS).find(([, a]) => a === alg)?.[0] as string;
  return generateKeyPairSync('ec', { namedCurve: curve }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/**
 * The private key PEM kept at `path` (mode 0600), generated the first time: what a server that keeps its state in a
 * data directory uses so tokens it issued stay valid across restarts.
 */
export async function loadOrCreateServiceAccountKey(path: string, alg: ServiceAccountSigningAlgorithm = 'RS256'): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const pem = generateServiceAccountKeyPEM(alg);
  // 'wx': two servers starting at once on one directory must not overwrite each other's key.
  try {
    await writeFile(path, pem, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFile(path, 'utf8');
    throw err;
  }
  await chmod(path, 0o600);
  return pem;
}

/** The public keys as a JWK Set, as kube serves /openid/v1/jwks: kty, the key, kid, alg and use "sig". */
export async function jwksOf(keys: readonly VerificationKey[]): Promise<JSONWebKeySet> {
  const out: JWK[] = [];
  for (const k of keys) out.push({ ...(await exportJWK(k.key)), kid: k.kid, alg: k.alg, use: 'sig' });
  return { keys: out };
}
