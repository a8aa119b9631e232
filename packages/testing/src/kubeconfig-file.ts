/**
 * The admin's kubeconfig (clientcmd v1 Config) as JSON, which every kubeconfig reader takes as YAML. Over plain HTTP
 * the cluster says `insecure-skip-tls-verify` (client-node refuses an http:// server otherwise, and an empty CA would
 * mean nothing); over HTTPS it carries the CA.
 */
export function kubeconfigText(target: { url: string; token: string; ca?: string | undefined }): string {
  const cluster = target.ca
    ? { server: target.url, 'certificate-authority-data': Buffer.from(target.ca).toString('base64') }
    : { server: target.url, 'insecure-skip-tls-verify': true };
  return `${JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'kapi', cluster }],
      users: [{ name: 'kapi-admin', user: target.token ? { token: target.token } : {} }],
      contexts: [{ name: 'kapi', context: { cluster: 'kapi', user: 'kapi-admin', namespace: 'default' } }],
      'current-context': 'kapi',
      preferences: {},
    },
    null,
    2,
  )}\n`;
}
